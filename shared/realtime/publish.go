package realtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Errors of a Poster.
var (
	// ErrGone: the connection no longer exists (API Gateway's 410); its records are removed.
	ErrGone = errors.New("realtime: connection gone")
	// ErrThrottled: API Gateway throttled the post (429); it is retried once after a pause.
	ErrThrottled = errors.New("realtime: post throttled")
)

// Poster sends one message to one connection (API Gateway's PostToConnection).
type Poster interface {
	Post(ctx context.Context, connectionID string, data []byte) error
}

// Subscriber is a connection subscribed to a topic. A connection that closed stays a subscriber,
// not Live, for the resume window: its events are still kept so that it resumes without a gap.
type Subscriber struct {
	ConnectionID string
	Live         bool
}

// Message is an event as sent, with its id on the topic.
type Message struct {
	ID   int64
	Data []byte
}

// Log is the publishing side of the store.
type Log interface {
	// Subscribers is one query: the topic's subscribers, live or lingering.
	Subscribers(ctx context.Context, tenantID string, t Topic) ([]Subscriber, error)
	// Reserve takes n consecutive ids on the topic and returns the first.
	Reserve(ctx context.Context, tenantID string, t Topic, n int) (int64, error)
	// Keep stores messages for the resume window.
	Keep(ctx context.Context, tenantID string, t Topic, msgs []Message, until time.Time) error
	// Close removes a connection and keeps its subscriptions lingering until the given time.
	Close(ctx context.Context, connectionID string, linger time.Time) error
}

// Stream sends a step's events to one topic's subscribers.
type Stream interface {
	Send(ctx context.Context, events ...Event)
}

// Discard is a Stream with no subscribers.
var Discard Stream = stream{}

// Defaults of a Publisher. The timeout only stops a hung call: the calls take milliseconds on
// AWS, but a loaded machine running the local stack can take seconds.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultResumeWindow = 15 * time.Minute
	throttlePause       = 100 * time.Millisecond
)

// Publisher publishes events best-effort: it never fails the caller, every failure is logged, and
// all its work for one call fits in Timeout. A topic without subscribers costs one query.
type Publisher struct {
	Log    Log
	Poster Poster
	// Timeout bounds each Open and each Send (DefaultTimeout when 0).
	Timeout time.Duration
	// ResumeWindow is how long events are kept for subscribe with since (DefaultResumeWindow when 0).
	ResumeWindow time.Duration
	Now          func() time.Time
	Logger       *slog.Logger
}

func (p *Publisher) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return DefaultTimeout
}

func (p *Publisher) window() time.Duration {
	if p.ResumeWindow > 0 {
		return p.ResumeWindow
	}
	return DefaultResumeWindow
}

func (p *Publisher) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Publisher) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// Open looks up the topic's subscribers once; the stream's sends go to them. A step opens its
// topic once, so a step without subscribers makes that one query and nothing else.
func (p *Publisher) Open(ctx context.Context, tenantID string, t Topic) Stream {
	if p == nil {
		return Discard
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout())
	defer cancel()
	subs, err := p.Log.Subscribers(ctx, tenantID, t)
	if err != nil {
		p.logger().WarnContext(ctx, "realtime: subscribers", "topic", t.Key(), "error", err.Error())
		return Discard
	}
	if len(subs) == 0 {
		return Discard
	}
	return &topicStream{p: p, tenantID: tenantID, topic: t, subs: subs}
}

type stream struct{}

func (stream) Send(context.Context, ...Event) {}

type topicStream struct {
	p        *Publisher
	tenantID string
	topic    Topic
	mu       sync.Mutex
	subs     []Subscriber
}

// Send numbers the events, keeps them for resumption and posts them to the live subscribers, in
// order, concurrently across connections. Events of another topic are a caller's bug: dropped.
func (s *topicStream) Send(ctx context.Context, events ...Event) {
	p := s.p
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout())
	defer cancel()
	var own []Event
	for _, e := range events {
		if e.EventTopic() == s.topic {
			own = append(own, e)
		}
	}
	if len(own) == 0 {
		return
	}
	first, err := p.Log.Reserve(ctx, s.tenantID, s.topic, len(own))
	if err != nil {
		p.logger().WarnContext(ctx, "realtime: reserve ids", "topic", s.topic.Key(), "error", err.Error())
		return
	}
	msgs := make([]Message, 0, len(own))
	for i, e := range own {
		data, err := Encode(first+int64(i), e)
		if err != nil {
			p.logger().ErrorContext(ctx, "realtime: encode", "error", err.Error())
			continue
		}
		msgs = append(msgs, Message{ID: first + int64(i), Data: data})
	}
	if err := p.Log.Keep(ctx, s.tenantID, s.topic, msgs, p.now().Add(p.window())); err != nil {
		p.logger().WarnContext(ctx, "realtime: keep events", "topic", s.topic.Key(), "error", err.Error())
	}
	s.mu.Lock()
	subs := s.subs
	s.mu.Unlock()
	var wg sync.WaitGroup
	gone := make(chan string, len(subs))
	for _, sub := range subs {
		if !sub.Live {
			continue
		}
		wg.Go(func() {
			if errors.Is(p.deliver(ctx, sub.ConnectionID, msgs), ErrGone) {
				gone <- sub.ConnectionID
			}
		})
	}
	wg.Wait()
	close(gone)
	for id := range gone {
		s.drop(id)
		if err := p.Log.Close(ctx, id, p.now().Add(p.window())); err != nil {
			p.logger().WarnContext(ctx, "realtime: remove gone connection", "connectionId", id, "error", err.Error())
		}
	}
}

// drop stops later sends of this stream from posting to a gone connection.
func (s *topicStream) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.subs[:0:0]
	for _, sub := range s.subs {
		if sub.ConnectionID != id {
			kept = append(kept, sub)
		}
	}
	s.subs = kept
}

// deliver posts the messages to one connection in order, stopping at the first that fails.
func (p *Publisher) deliver(ctx context.Context, connectionID string, msgs []Message) error {
	for _, m := range msgs {
		if err := Post(ctx, p.Poster, connectionID, m.Data); err != nil {
			if !errors.Is(err, ErrGone) {
				p.logger().WarnContext(ctx, "realtime: post", "connectionId", connectionID, "error", err.Error())
			}
			return err
		}
	}
	return nil
}

// Post sends one message, retrying once after a pause when API Gateway throttles.
func Post(ctx context.Context, poster Poster, connectionID string, data []byte) error {
	err := poster.Post(ctx, connectionID, data)
	if !errors.Is(err, ErrThrottled) {
		return err
	}
	select {
	case <-ctx.Done():
		return err
	case <-time.After(throttlePause):
	}
	return poster.Post(ctx, connectionID, data)
}
