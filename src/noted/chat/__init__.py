"""The conversation layer: the chat engine, its events, prompts, token budget and saved transcripts.

``engine.ChatEngine.run`` yields the typed events of ``events``; ``transcripts.Transcripts`` keeps
conversations in the profile; ``prompts`` and ``budget`` shape each request; ``turns`` holds the
texts and helpers of one tool round. Front ends import the modules they need directly.
"""
