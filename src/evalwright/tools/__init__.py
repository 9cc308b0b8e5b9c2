"""Running the tools a model calls (docs/tools.md#the-tool-loop): scripted results, commands
and MCP servers, each call answered with a result the API understands, never a crash."""
