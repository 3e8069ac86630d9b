package emulator

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"
)

// newLambdaRequestID returns a random UUID, the form of Lambda request IDs.
func newLambdaRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// newAPIRequestID returns an ID in the form of API Gateway's, e.g. "JKJaXmPLvHcESHA=".
func newAPIRequestID() string {
	b := make([]byte, 10)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// newTraceRoot returns an X-Ray trace root such as API Gateway puts in X-Amzn-Trace-Id.
func newTraceRoot(now time.Time) string {
	return fmt.Sprintf("Root=1-%08x-%s", now.Unix(), randomHex(12))
}

// lambdaTraceID extends a trace root into the header Lambda gives the runtime. Not sampled:
// there is no X-Ray daemon to send segments to.
func lambdaTraceID(root string) string {
	return root + ";Parent=" + randomHex(8) + ";Sampled=0"
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
