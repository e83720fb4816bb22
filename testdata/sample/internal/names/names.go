// Package names builds greetings.
package names

import "strings"

// Greeting returns the greeting for name.
func Greeting(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return "Hello, stranger!"
	}
	return "Hello, " + name + "!"
}
