// Command broken does not compile, on purpose: the emulator must answer 502 and log why.
package main

func main() {
	var n int = "not a number"
	_ = n
}
