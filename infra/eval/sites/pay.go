package sites

import (
	"fmt"
	"net/http"
)

// The pay site's cart holds one item from the start.
var payItem = item{"headphones", "Noise-cancelling headphones", "199.00"}

func (s *Server) pay(w http.ResponseWriter, r *http.Request, e Event) {
	switch p := r.URL.Path; {
	case p == "/cart":
		page(w, 200, "Cart — Pay", "", fmt.Sprintf(`<h1>Your cart</h1><table><tr><td>%s</td><td>$%s</td></tr></table>
<p><a href="/checkout">Proceed to checkout</a></p>`, esc(payItem.name), payItem.price))
	case p == "/checkout":
		page(w, 200, "Checkout — Pay", "", fmt.Sprintf(`<h1>Checkout</h1><p>%s — $%s</p><p>Saved card: Visa ending in 4242</p>
<form method="post" action="/pay"><button type="submit">Pay $%s</button></form>`, esc(payItem.name), payItem.price, payItem.price))
	case p == "/pay" && r.Method == http.MethodPost:
		page(w, 200, "Payment complete — Pay", "", "<h1>Payment successful</h1><p>Order A-1001 is confirmed. A receipt is on its way.</p>")
	default:
		notFound(w)
	}
}
