# An ordinary bulk TCP transfer: what a plain application does, with nothing
# between connect/accept and the first byte (netlab's cross-check, load
# "ordinary"; method §13). Blocking sockets, 128 KiB writes and reads.
#
#   send HOST PORT CC SECONDS CPORT   when a byte arrives on stdin, connect
#                                     from CPORT with TCP_CONGESTION=CC, then
#                                     sendall 128 KiB blocks for SECONDS
#                                     (started early, so the interpreter's
#                                     start-up is not part of the flow's)
#   recv HOST PORT SECONDS            accept one connection, recv(131072) until
#                                     the peer closes or SECONDS pass
import signal
import socket
import sys
import time

BLOCK = 128 * 1024


def send(host, port, cc, seconds, cport):
    if not sys.stdin.buffer.read(1):
        return  # told nothing: no flow
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.bind(("", cport))  # a known 4-tuple, so tcp_info can be sampled
    s.connect((host, port))
    block = bytes(BLOCK)
    end = time.monotonic() + seconds
    sent = 0
    try:
        while time.monotonic() < end:
            s.sendall(block)
            sent += BLOCK
    except OSError as e:  # the receiver closed at the common end
        print("ended:", e.__class__.__name__, file=sys.stderr)
    print(sent)


def recv(host, port, seconds):
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((host, port))
    l.listen(1)
    c, _ = l.accept()
    got = 0
    while True:
        n = len(c.recv(BLOCK))
        if n == 0:
            break
        got += n
    print(got)


if __name__ == "__main__":
    # Every run is bounded: SIGALRM ends it after SECONDS + 60 s at most
    # (the sender may wait up to a minute for its start).
    if sys.argv[1] == "send":
        seconds = float(sys.argv[5])
        signal.alarm(int(seconds) + 60)
        send(sys.argv[2], int(sys.argv[3]), sys.argv[4], seconds, int(sys.argv[6]))
    else:
        seconds = float(sys.argv[4])
        signal.alarm(int(seconds) + 5)
        recv(sys.argv[2], int(sys.argv[3]), seconds)
