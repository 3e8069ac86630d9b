package pagemodel

import (
	"strings"
	"testing"
)

func TestRedactDOM(t *testing.T) {
	tests := []struct{ name, dom, want string }{
		{
			name: "password value",
			dom:  `<form><input id="4" type="email" value="ann@example.com"><input id="5" type="password" value="hunter2"><button id="6">Sign in</button></form>`,
			want: `<form><input id="4" type="email" value="ann@example.com"><input id="5" type="password" value="` + Mask + `"><button id="6">Sign in</button></form>`,
		},
		{
			name: "autocomplete kinds, quotes and case",
			dom:  `<INPUT Type=text AUTOCOMPLETE="cc-number" VALUE='4111 1111'/><input autocomplete="one-time-code" value=123456><input autocomplete="section-a new-password" value="x&amp;y"><input autocomplete="username" value="ann">`,
			want: `<INPUT Type=text AUTOCOMPLETE="cc-number" VALUE='` + Mask + `'/><input autocomplete="one-time-code" value=` + Mask + `><input autocomplete="section-a new-password" value="` + Mask + `"><input autocomplete="username" value="ann">`,
		},
		{
			name: "empty values stay",
			dom:  `<input type="password" value=""><input type="password">`,
			want: `<input type="password" value=""><input type="password">`,
		},
		{
			name: "textarea content",
			dom:  "<textarea id=\"3\" autocomplete=\"cc-csc\">\n 123 \n</textarea><textarea id=\"4\">note</textarea>",
			want: "<textarea id=\"3\" autocomplete=\"cc-csc\">\n " + Mask + " \n</textarea><textarea id=\"4\">note</textarea>",
		},
		{
			name: "self-closing raw tags do not swallow the rest",
			dom:  `<textarea id="1"/><input id="2" type="password" value="s3cret"><script>var x = '<input type=password value=a>'</script>`,
			want: `<textarea id="1"/><input id="2" type="password" value="` + Mask + `"><script>var x = '<input type=password value=a>'</script>`,
		},
		{
			name: "templatized: the argument is masked",
			dom:  "T1: <div><input id=$1 type=\"password\" value=$2/></div>\nT2: <a id=$1>$2</a>\n\n<body>{T1(5,\"hunter2\")}{T2(6,\"hunter2 is a word\")}</body>",
			want: "T1: <div><input id=$1 type=\"password\" value=$2/></div>\nT2: <a id=$1>$2</a>\n\n<body>{T1(5,\"" + Mask + "\")}{T2(6,\"hunter2 is a word\")}</body>",
		},
		{
			name: "templatized: a value written in the template is masked there",
			dom:  "T1: <input id=$1 type=\"password\" value=\"fixed\">\n\n{T1(5)}",
			want: "T1: <input id=$1 type=\"password\" value=\"" + Mask + "\">\n\n{T1(5)}",
		},
		{
			name: "no word says it: a masking style, code boxes, the code after a card number",
			dom: `<input id="1" name="fjalekalimi" style="-webkit-text-security:disc" value="shqip-sekret">` +
				`<input id="2" maxlength="1" value="4"><input id="3" maxlength="1" value="8"><input id="4" maxlength="1" value="1"><input id="5" maxlength="1" value="5">` +
				`<input id="6" placeholder="0000 0000 0000 0000" value="4242 4242 4242 4242"><input id="7" maxlength="4" inputmode="numeric" value="7373"><input id="8" name="q" value="wool socks">`,
			want: `<input id="1" name="fjalekalimi" style="-webkit-text-security:disc" value="` + Mask + `">` +
				`<input id="2" maxlength="1" value="` + Mask + `"><input id="3" maxlength="1" value="` + Mask + `"><input id="4" maxlength="1" value="` + Mask + `"><input id="5" maxlength="1" value="` + Mask + `">` +
				`<input id="6" placeholder="0000 0000 0000 0000" value="` + Mask + `"><input id="7" maxlength="4" inputmode="numeric" value="` + Mask + `"><input id="8" name="q" value="wool socks">`,
		},
		{
			name: "nothing secret: the same string",
			dom:  "\xff<p>caf\xc3</p><input type=text value=x>",
			want: "\xff<p>caf\xc3</p><input type=text value=x>",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RedactDOM(tc.dom)
			if got != tc.want {
				t.Errorf("RedactDOM:\ngot  %q\nwant %q", got, tc.want)
			}
			if again := RedactDOM(got); again != got {
				t.Errorf("redacting twice changed it again: %q", again)
			}
			for _, e := range Parse(tc.dom).Elements() {
				if v, _ := e.Attr("value"); strings.Contains(v, "hunter2") || strings.Contains(v, "s3cret") || strings.Contains(v, "sekret") || strings.Contains(v, "4242") {
					t.Errorf("element %d of the page as parsed keeps its secret value %q", e.ID, v)
				}
			}
		})
	}
}
