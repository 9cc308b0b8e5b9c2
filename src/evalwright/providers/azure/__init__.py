"""Azure OpenAI deployments: the Chat Completions wire format, Azure's URL and key header."""
