package project

// Greet returns a greeting.
// TODO: greet in more languages
func Greet() string { return "hello" }
