// Command greet prints a greeting for each name it is given.
package main

import (
	"fmt"
	"os"

	"example.com/greet/internal/names"
)

func main() {
	for _, n := range os.Args[1:] {
		fmt.Println(names.Greeting(n))
	}
}
