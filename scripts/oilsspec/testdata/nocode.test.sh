#### no code
## stdout: x
