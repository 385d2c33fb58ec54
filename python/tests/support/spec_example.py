# The Python example of the product spec (claude-memory-tool.md, "Use"), exactly as written.
# tests/e2e/test_spec_example.py runs it with the model endpoint pointed at the scripted model
# (ANTHROPIC_BASE_URL) and an hms-mcp on PATH; nothing else is changed.
import anthropic
from hms_memory_tool import HolographicMemoryToolSync

client = anthropic.Anthropic()
with HolographicMemoryToolSync.connect(command="hms-mcp") as memory:
    final = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=1024,
        messages=[{"role": "user", "content": "Remember that Acme Corp prefers email follow-ups."}],
        tools=[memory, memory.recall_tool()],
    ).until_done()
