"""OpenAI Chat Completions (and any compatible server, via ``base_url``)."""
