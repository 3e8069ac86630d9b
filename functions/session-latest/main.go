// Command session-latest serves GET /api/session/latest: the user's most recently updated session.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
)

// route is the function's event in template.yaml.
const route = "GET /api/session/latest"

func main() {
	app.SessionMain(route, func(s *chatdb.Store) http.Handler { return newHandler(s) })
}
