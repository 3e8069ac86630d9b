// Command session-archive serves POST /api/session: archives one of the user's sessions.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/sessionapp"
)

// route is the function's event in template.yaml.
const route = "POST /api/session"

func main() {
	sessionapp.Main(route, func(s *chatdb.Store) http.Handler { return newHandler(s) })
}
