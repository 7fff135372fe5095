module sdkbench

go 1.24

require (
	github.com/anthropics/anthropic-sdk-go v1.84.0
	github.com/openai/openai-go/v3 v3.100.0
)
