// Command session-list serves GET /api/session: the user's chat sessions.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/sessionapp"
)

// route is the function's event in template.yaml.
const route = "GET /api/session"

func main() {
	sessionapp.Main(route, func(s *chatdb.Store) http.Handler { return newHandler(s) })
}
