package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// listenSpec is an address the stack listens on, with what chooses it.
type listenSpec struct {
	addr string
	// what it serves, for the message ("the API").
	what string
	// makeVar and flag choose it: make run's variable and the launcher's flag.
	makeVar, flag string
}

// listenChecked listens on every address after checking that DynamoDB Local's port is free too,
// so that a taken port fails at once, not after minutes of setup, with a command that uses free
// ports. The listeners are in the order of specs.
func listenChecked(dynamoPort int, specs ...listenSpec) ([]net.Listener, error) {
	var (
		lns         []net.Listener
		lines, vars []string
		flags       []string
		taken       = map[int]bool{dynamoPort: true}
	)
	closeAll := func() {
		for _, l := range lns {
			l.Close()
		}
	}
	type busy struct {
		spec       listenSpec
		host       string
		port       int
		forDynamoD bool
	}
	var busies []busy
	for _, s := range specs {
		host, p, err := net.SplitHostPort(s.addr)
		port, perr := strconv.Atoi(p)
		if err != nil || perr != nil {
			closeAll()
			return nil, fmt.Errorf("%s %q is not host:port (e.g. 127.0.0.1:3000)", s.flag, s.addr)
		}
		taken[port] = true
		ln, err := net.Listen("tcp", s.addr)
		switch {
		case err == nil:
			lns = append(lns, ln)
		case errors.Is(err, syscall.EADDRINUSE):
			busies = append(busies, busy{spec: s, host: host, port: port})
		default:
			closeAll()
			return nil, fmt.Errorf("listen on %s: %w", s.addr, err)
		}
	}
	// DynamoDB Local binds every interface.
	if free("", dynamoPort) != nil {
		busies = append(busies, busy{spec: listenSpec{what: "DynamoDB Local", makeVar: "DYNAMODB_PORT", flag: "--dynamodb-port"}, port: dynamoPort, forDynamoD: true})
	}
	if len(busies) == 0 {
		return lns, nil
	}
	closeAll()
	for _, b := range busies {
		next := freeAfter(b.host, b.port, taken)
		taken[next] = true
		if b.forDynamoD {
			lines = append(lines, fmt.Sprintf("Port %d is already in use, so DynamoDB Local cannot start there.", b.port))
			vars, flags = append(vars, b.spec.makeVar+"="+strconv.Itoa(next)), append(flags, b.spec.flag+" "+strconv.Itoa(next))
			continue
		}
		addr := net.JoinHostPort(b.host, strconv.Itoa(next))
		lines = append(lines, fmt.Sprintf("%s is already in use (another `make run`, or another program), so %s cannot listen there.", b.spec.addr, b.spec.what))
		vars, flags = append(vars, b.spec.makeVar+"="+addr), append(flags, b.spec.flag+" "+addr)
	}
	return nil, fmt.Errorf("%s\nChoose free ports, e.g.:  make run %s   (or: local run %s)",
		strings.Join(lines, "\n"), strings.Join(vars, " "), strings.Join(flags, " "))
}

// free reports whether port can be bound on host ("" for every interface).
func free(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// freeAfter is the first port after port that is free on host and not taken by another choice;
// when none of the next hundred is, one the kernel picks.
func freeAfter(host string, port int, taken map[int]bool) int {
	for p := port + 1; p <= port+100 && p < 65536; p++ {
		if !taken[p] && free(host, p) == nil {
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
