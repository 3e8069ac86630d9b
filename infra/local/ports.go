package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// listenChecked listens on the API's address after checking that DynamoDB Local's port is free
// too, so that a taken port fails at once, not after minutes of setup, with a command that
// uses free ports.
func listenChecked(addr string, dynamoPort int) (net.Listener, error) {
	host, apiPort, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q is not host:port (e.g. 127.0.0.1:3000): %w", addr, err)
	}
	ln, apiErr := net.Listen("tcp", addr)
	if apiErr != nil && !errors.Is(apiErr, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: %w", addr, apiErr)
	}
	// DynamoDB Local binds every interface.
	dynErr := free("", dynamoPort)
	if apiErr == nil && dynErr == nil {
		return ln, nil
	}
	if ln != nil {
		ln.Close()
	}
	var lines, makeArgs, flags []string
	if apiErr != nil {
		p, _ := strconv.Atoi(apiPort)
		next := net.JoinHostPort(host, strconv.Itoa(freeAfter(host, p, dynamoPort)))
		lines = append(lines, fmt.Sprintf("%s is already in use (another `make run`, or another program), so the API cannot listen there.", addr))
		makeArgs, flags = append(makeArgs, "ADDR="+next), append(flags, "--addr "+next)
	}
	if dynErr != nil {
		apiP, _ := strconv.Atoi(apiPort)
		next := strconv.Itoa(freeAfter("", dynamoPort, apiP))
		lines = append(lines, fmt.Sprintf("Port %d is already in use, so DynamoDB Local cannot start there.", dynamoPort))
		makeArgs, flags = append(makeArgs, "DYNAMODB_PORT="+next), append(flags, "--dynamodb-port "+next)
	}
	return nil, fmt.Errorf("%s\nChoose free ports, e.g.:  make run %s   (or: local run %s)",
		strings.Join(lines, "\n"), strings.Join(makeArgs, " "), strings.Join(flags, " "))
}

// free reports whether port can be bound on host ("" for every interface).
func free(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// freeAfter is the first port after port that is free on host and is not avoid; when none of
// the next hundred is, one the kernel picks.
func freeAfter(host string, port, avoid int) int {
	for p := port + 1; p <= port+100 && p < 65536; p++ {
		if p != avoid && free(host, p) == nil {
			return p
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
