"""The viewers' websocket: what they hear (the message list) and the fan-out that sends it."""
