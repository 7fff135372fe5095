package config

import (
	"testing"

	"github.com/llmsla/llmsla/harness/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrice(t *testing.T) {
	cfg, err := LoadFile(writeConfig(t, `
endpoints:
  hosted:
    base_url: https://api.example.com/v1
    model: m
    price: {input_per_mtok: 0.15, output_per_mtok: 0.60, currency: USD}
  gpu:
    sim: ""
    price: {per_hour: 2.50, currency: EUR}
  free:
    sim: ""
`))
	require.NoError(t, err)
	assert.Equal(t, report.Price{InputPerMTok: 0.15, OutputPerMTok: 0.60, Currency: "USD"}, cfg.Prices["hosted"])
	assert.Equal(t, report.Price{Hourly: true, PerHour: 2.5, Currency: "EUR"}, cfg.Prices["gpu"])
	_, ok := cfg.Prices["free"]
	assert.False(t, ok, "an endpoint without a price has none, not a price of 0")
}

// TestPriceErrors: a price that cannot be right is a configuration error
// naming file:line:key and what is allowed, before any request.
func TestPriceErrors(t *testing.T) {
	cases := map[string]struct {
		price string
		want  []string
	}{
		"misspelt key": {"{input_per_mtoken: 0.15, output_per_mtok: 0.6, currency: USD}",
			[]string{":4: endpoints.a.price.input_per_mtoken: unknown key (allowed: input_per_mtok, output_per_mtok, per_hour, currency)"}},
		"negative": {"{input_per_mtok: -0.15, output_per_mtok: 0.6, currency: USD}",
			[]string{":4: endpoints.a.price.input_per_mtok: \"-0.15\" is not a price (want a number from 0 to 1e+06"}},
		"not a number": {"{per_hour: cheap, currency: USD}",
			[]string{":4: endpoints.a.price.per_hour: \"cheap\" is not a price"}},
		"both kinds": {"{per_hour: 2, output_per_mtok: 0.6, currency: USD}",
			[]string{":4: endpoints.a.price: set per-token prices (input_per_mtok, output_per_mtok) or per_hour, not both"}},
		"no figure": {"{currency: USD}",
			[]string{":4: endpoints.a.price: no price: set input_per_mtok and output_per_mtok"}},
		"input price alone": {"{input_per_mtok: 3, currency: USD}",
			[]string{":4: endpoints.a.price.output_per_mtok: missing: a per-token price needs input_per_mtok and output_per_mtok"}},
		"output price alone": {"{output_per_mtok: 15, currency: USD}",
			[]string{":4: endpoints.a.price.input_per_mtok: missing: a per-token price needs input_per_mtok and output_per_mtok"}},
		"no currency": {"{per_hour: 2}",
			[]string{":4: endpoints.a.price.currency: missing: name the currency"}},
		"bad currency": {"{per_hour: 2, currency: \"$\"}",
			[]string{":4: endpoints.a.price.currency: \"$\" is not a currency"}},
		"not a mapping": {"0.15",
			[]string{":4: endpoints.a.price: want a mapping"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, "endpoints:\n  a:\n    sim: \"\"\n    price: "+tc.price+"\n")
			_, err := LoadFile(p)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), p+w)
			}
		})
	}
}
