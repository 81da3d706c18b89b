"""A long message to viewers, in-process: the server's own protocol class (transport.py) over recorded
transports, read by websockets' own client protocol with compression agreed, as a browser agrees it.
Its frames are made once for every viewer, uncompressed, and the peer reads the message whole; a
short one is compressed as agreed."""

from __future__ import annotations

import asyncio

from door_in_process import Recorded
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.http11 import Response
from websockets.uri import parse_uri

from ringside.server.door import transport

LONG = "ring ✓ 링 环 " * 4000  # past FRAGMENT, and characters of more than one byte across its frames
SHORT = '{"type":"step"}'


async def heard(*texts: str) -> tuple[list[str], bytes]:
    """What a client that agreed compression reads of `texts` sent on the viewers' socket, and the bytes
    the server wrote after the handshake."""
    sent = asyncio.Event()

    async def app(scope, receive, send) -> None:
        """The viewers' route: it accepts, sends `texts`, and waits for the peer to go."""
        await receive()
        await send({"type": "websocket.accept"})
        for text in texts:
            await send({"type": "websocket.send", "text": text})  # written once the transport has room
        sent.set()
        while (await receive())["type"] != "websocket.disconnect":
            pass

    config = Config(app=app, **{k: v for k, v in transport.protocols().items() if k != "http"})
    config.load()
    server = config.ws_protocol_class(config, ServerState(), {}, _loop=asyncio.get_running_loop())
    wire = Recorded()
    server.connection_made(wire)
    client = ClientProtocol(
        parse_uri("ws://127.0.0.1:8000/ws"), extensions=[ClientPerMessageDeflateFactory()]
    )
    client.send_request(client.connect())
    server.data_received(b"".join(client.data_to_send()))
    await sent.wait()
    client.receive_data(bytes(wire.written))
    events = client.events_received()
    assert isinstance(events[0], Response) and events[0].status_code == 101 and client.extensions
    messages, parts = [], []
    for frame in events[1:]:  # as the client's inflater leaves them
        parts.append(frame.data)
        if frame.fin:
            messages.append(b"".join(parts).decode())
            parts = []
    head = bytes(wire.written).index(b"\r\n\r\n") + 4
    return messages, bytes(wire.written)[head:]


def test_a_long_message_reaches_a_compressing_peer_whole_in_frames_made_once():
    messages, written = asyncio.run(heard(LONG, SHORT))
    assert messages == [LONG, SHORT]
    frames = transport._frames(LONG)
    assert len(frames) == -(-len(LONG.encode()) // transport.FRAGMENT) > 1
    assert written.startswith(b"".join(frames)), "the frames every viewer is sent, made once, uncompressed"
    assert SHORT.encode() not in written[len(b"".join(frames)) :], "a short one compressed, as agreed"
    assert transport._frames(LONG) is frames
