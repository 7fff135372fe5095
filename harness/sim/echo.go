package sim

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// echoText is the request's secrets as it sent them, for Config.Echo and
// the echo_error fault:
//
//	echo key=<token> header=<value>… query=<value>…
//
// key is what follows the scheme in Authorization (the bearer token);
// there is a header= for every value of every X-… header but X-Sim-Fault,
// and of Azure's api-key, in header name order; a query= for every URL
// query value, in key order. Parts that were not sent are left out.
func echoText(r *http.Request) string {
	var b strings.Builder
	b.WriteString("echo")
	if auth := r.Header.Get("Authorization"); auth != "" {
		_, cred, ok := strings.Cut(auth, " ")
		if !ok {
			cred = auth
		}
		b.WriteString(" key=" + strings.TrimSpace(cred))
	}
	var names []string
	for name := range r.Header { // canonical names, as the server received them
		if (strings.HasPrefix(name, "X-") && name != FaultHeader) || name == "Api-Key" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range r.Header[name] {
			b.WriteString(" header=" + v)
		}
	}
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			b.WriteString(" query=" + v)
		}
	}
	return b.String()
}

// echoPreamble comes before the secrets in echo_error's message. It is over
// 200 characters long, so that a client that shortens messages to some
// such length before it redacts them keeps part of a secret it can then
// no longer recognise.
const echoPreamble = "The request was rejected by the gateway before it reached the model, " +
	"because one of its parameters is not supported for this deployment. The gateway " +
	"quotes the request as it received it, credentials included, so that its operator " +
	"can tell which client sent it. Request as received:"
