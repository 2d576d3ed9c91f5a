"""Real coding-agent CLIs (Claude Code, Codex) driven against the live gateway."""
