// Package docs holds llmsla's documentation set (the Markdown files beside
// this one) and its tests: every relative link and heading anchor in the
// repository's Markdown resolves, the package graph drawn in
// architecture.md is the one the code has, and configuration.md names
// every key of the simulator's spec. It has no code to import.
package docs
