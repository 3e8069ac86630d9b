package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

type logKey struct{}

// requestLog collects what the request's single log line says beyond the basics.
type requestLog struct {
	mu    sync.Mutex
	id    string
	attrs []slog.Attr
	err   *Error
}

// AddLogAttrs adds attributes (e.g. tenantId, userId) to the request's log line.
func AddLogAttrs(ctx context.Context, attrs ...slog.Attr) {
	if l, ok := ctx.Value(logKey{}).(*requestLog); ok {
		l.mu.Lock()
		l.attrs = append(l.attrs, attrs...)
		l.mu.Unlock()
	}
}

func recordError(r *http.Request, e *Error) {
	if l, ok := r.Context().Value(logKey{}).(*requestLog); ok {
		l.mu.Lock()
		l.err = e
		l.mu.Unlock()
	}
}

func requestID(ctx context.Context) string {
	if gw, ok := core.GetAPIGatewayV2ContextFromContext(ctx); ok && gw.RequestID != "" {
		return gw.RequestID
	}
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		return lc.AwsRequestID
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ClientIP is the caller's address as API Gateway saw it (requestContext.http.sourceIp, which
// clients cannot forge), falling back to the connection's address outside Lambda.
func ClientIP(r *http.Request) string {
	if gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && gw.HTTP.SourceIP != "" {
		return gw.HTTP.SourceIP
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(status int) {
	if s.status == 0 {
		s.status = status
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Logged writes one JSON log line per request: requestId, route, method, status, durationMs, the
// attributes handlers added, and for failures the error code and its cause. It also turns a
// panic into a generic 500 so a bug never reaches the client as a broken response.
func Logged(logger *slog.Logger, route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		l := &requestLog{id: requestID(r.Context())}
		r = r.WithContext(context.WithValue(r.Context(), logKey{}, l))
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				logger.Error("panic", "requestId", l.id, "route", route, "panic", p)
				if rec.status == 0 {
					WriteError(rec, r, NewError(CodeInternal, "An internal error occurred."))
				}
			}
			attrs := []slog.Attr{
				slog.String("requestId", l.id),
				slog.String("route", route),
				slog.String("method", r.Method),
				slog.Int("status", rec.status),
				slog.Int64("durationMs", time.Since(start).Milliseconds()),
			}
			l.mu.Lock()
			attrs = append(attrs, l.attrs...)
			level := slog.LevelInfo
			if l.err != nil {
				attrs = append(attrs, slog.String("code", string(l.err.Code)))
				if l.err.Cause != nil {
					attrs = append(attrs, slog.String("error", l.err.Cause.Error()))
				}
			}
			l.mu.Unlock()
			if rec.status >= 500 {
				level = slog.LevelError
			}
			logger.LogAttrs(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}
