// Package quality turns "is the answer right?" into data, the way the rest of
// llmsla turns "was it fast?" into data.
//
// The parts fit like this:
//
//   - A fixture file (JSONL, see fixtures/README.md) holds Cases. LoadCases
//     reads one and validates everything — keys, matchers, regexes, template
//     variables, schemas, and that each case's reference answer passes and its
//     wrong answer fails — before a single request is sent, so a typo in a
//     fixture is a configuration error, not a 0% accuracy figure.
//   - A Matcher decides whether an answer text is right for one case. It is
//     built once from the case's "match" spec (NewMatcher).
//   - A Check bundles a case, its compiled JSON Schema and the JSON policy
//     (strict by default, lenient on request). Check.Run is cheap enough to
//     call for every response and returns a sample.Quality, which travels with the
//     harness's Sample.
//   - A Tally adds them up into the rates METRICS.md defines (json valid %,
//     schema valid %, accuracy %). Tallies are plain data and merge; the
//     failing cases, with expected vs got, are kept per case by package
//     stats, which sees the case of every sample.
//   - Golden and Scrub keep recorded responses and reports as golden files
//     that compare JSON canonically and never hold a secret.
//
// A check that did not run is never read as passed or failed: every sample.Quality
// field comes with its Checked flag, and every rate's denominator counts only
// the responses where that check ran.
package quality
