package oracle

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Handler answers OpenAI-compatible chat-completions requests (POST …/chat/completions) as the
// oracle: the reply is the move Decide chooses, in the API's reply format, and the usage is
// estimated at four characters a token.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "Unknown request URL: "+r.Method+" "+r.URL.Path)
		return
	}
	var in wireRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "want a chat-completions request with messages")
		return
	}
	var system, user string
	var later []string
	chars := 0
	for _, m := range in.Messages {
		text := content(m.Content)
		chars += len(text)
		switch {
		case m.Role == "system":
			system += text
		// The step's own message carries the page; corrective retries and server tools' results
		// come in later user messages.
		case m.Role == "user" && (user == "" || !strings.Contains(user, "<page_content>") && !strings.Contains(user, "TASK:")):
			user = text
		case m.Role == "user":
			later = append(later, text)
		}
	}
	p := Read(system, user)
	p.ReadLater(later)
	reply := Decide(p).Reply(p)
	prompt, completion := (chars+3)/4, (len(reply)+3)/4
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-oracle-%d", time.Now().UnixNano()), "object": "chat.completion",
		"created": time.Now().Unix(), "model": in.Model,
		"choices": []map[string]any{{
			"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": reply, "refusal": nil},
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

// content reads a message's content: a string or an array of text parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}
