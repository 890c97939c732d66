"""The far end of a raw round trip (bench/transport.py, bench/throughput.py): a DEALER that
answers every frame, as a bot would, without the SDK or the referee in the way.

    raw_peer.py ENDPOINT MODE

MODE ``echo`` sends the bytes back; ``codec`` decodes with the protocol's strict decoder and
answers an action; ``msgpack`` unpacks with plain msgpack (as a bot that trusts the referee)
and answers an action: the floor of a decision's round trip. ``stop`` ends it.
"""

import sys

import msgpack
import zmq

from protocol import codec, messages

endpoint, mode = sys.argv[1], sys.argv[2]
sock = zmq.Context().socket(zmq.DEALER)
sock.connect(endpoint)
sock.send(b"ready")
while (data := sock.recv()) != b"stop":
    if mode == "codec":
        data = codec.encode(messages.action(codec.decode(data)["seq"], 0))
    elif mode == "msgpack":
        data = msgpack.packb(
            {"v": 1, "type": "action", "seq": msgpack.unpackb(data)["seq"], "choice": 0}
        )
    sock.send(data)
