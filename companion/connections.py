"""Connection handling that survives idle, slow and silent clients on both ports.

HTTP is served by waitress, HTTPS by cheroot (``companion.commands.serve``). Their own settings
do most of the work; what they lack is here, in small subclasses of their classes:

- waitress reads every request asynchronously (one thread, ``poll``) and hands a worker only
  a complete request, so idle or slow connections cost a file descriptor, never a thread:
  :data:`CONNECTION_LIMIT` open connections in all, closed after :data:`CHANNEL_TIMEOUT_S`
  seconds without a byte. :class:`CappedChannel` closes a client address's connection beyond
  :data:`PER_ADDRESS` at once (a byte every few seconds keeps a connection open, so without a
  cap one client could hold every slot).
- cheroot gives a new connection to a worker thread at once, and a worker waits on it for
  ``timeout`` seconds: 16 silent connections would hold 16 workers. :class:`WaitForFirstBytes`
  keeps a new connection in cheroot's selector (no thread) until its first bytes arrive, with
  the same per-address cap and the same idle timeout (cheroot's own expiry).
  The TLS handshake is done there too, one non-blocking step whenever the client's bytes
  arrive (:meth:`LimitedServer.process_conn`), so a client that stops half way holds no thread
  either; a failed handshake is one log line, no traceback (:class:`HandshakeFirst`). A
  request must then arrive within deadlines (:class:`DeadlineRequest`: headers 10 s, body
  120 s), and one address holds at most half the workers at once; its other connections wait
  for one of those (:meth:`LimitedServer.worker_done`), so a client that trickles its
  requests byte by byte cannot take every worker.
"""

from __future__ import annotations

import errno
import logging
import queue
import selectors
import socket
import ssl
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from contextlib import contextmanager

from cheroot import connections as cheroot_connections
from cheroot import errors as cheroot_errors
from cheroot import server as cheroot_server
from cheroot import wsgi
from waitress.channel import HTTPChannel

log = logging.getLogger("companion.connections")

#: Open connections a server keeps in all (waitress ``connection_limit``; cheroot's selector).
CONNECTION_LIMIT = 1000
#: Open connections one client address may hold on one server; more are closed at once.
PER_ADDRESS = 32
#: Seconds a connection may stay silent (no byte) before it is closed.
CHANNEL_TIMEOUT_S = 30
#: Seconds a TLS client has to finish its handshake once it has sent its first byte.
HANDSHAKE_TIMEOUT_S = 10
#: Seconds a request's line and headers may take to arrive over HTTPS, from its first byte.
HEADERS_READ_S = 10
#: Seconds its body may take (a 20 MB photo at 2 Mbit/s takes 80 s).
BODY_READ_S = 120


class CappedChannel(HTTPChannel):
    """waitress's channel, refused (closed at once) when its client address already holds
    :data:`PER_ADDRESS` connections on this server."""

    per_address = PER_ADDRESS

    def __init__(self, server, sock, addr, adj, map=None):  # noqa: A002 - waitress's signature
        host = addr[0] if isinstance(addr, tuple) else addr
        same = sum(
            1
            for ch in (map or {}).values()
            if isinstance(ch, HTTPChannel) and isinstance(ch.addr, tuple) and ch.addr[0] == host
        )
        super().__init__(server, sock, addr, adj, map=map)
        if same >= self.per_address:
            log.warning("refused a connection from %s: %d open already", host, same)
            self.handle_close()


def cap_waitress(server) -> None:
    """Use :class:`CappedChannel` on a server made by ``waitress.create_server`` (one socket
    or several)."""
    servers = [server] if hasattr(server, "channel_class") else list(server.map.values())
    for s in servers:
        if hasattr(s, "channel_class"):
            s.channel_class = CappedChannel


class HandshakeFirst(ssl.SSLSocket):
    """A server-side TLS socket that handshakes on its first read or write, within
    :data:`HANDSHAKE_TIMEOUT_S` (then back to the connection's own timeout). A failed or
    timed-out handshake is one log line (no traceback) and cheroot's ``FatalSSLAlert``, which
    cheroot closes quietly."""

    def _handshake_once(self) -> None:
        if self.__dict__.get("_shaken"):
            return
        self.__dict__["_shaken"] = True
        before = self.gettimeout()
        self.settimeout(HANDSHAKE_TIMEOUT_S)
        try:
            self.do_handshake()
        except (OSError, ValueError) as exc:
            self._log_failure(exc)
            raise cheroot_errors.FatalSSLAlert("TLS handshake failed") from None
        finally:
            try:
                self.settimeout(before)
            except OSError:
                pass

    def handshake_step(self) -> bool | None:
        """One non-blocking step of the handshake (in cheroot's selector thread): True when
        done (or left to :meth:`_handshake_once` in the worker), False when the client has more
        to send, None when it failed (one log line; the caller closes the connection)."""
        before = self.gettimeout()
        self.settimeout(0.0)
        try:
            if not self.__dict__.get("_spoke"):
                # a client that closes before its first byte (a browser's spare connection,
                # a port check) never began a handshake: closed without a log line
                if socket.socket.recv(self, 1, socket.MSG_PEEK) == b"":
                    self.__dict__["_shaken"] = True
                    return None
                self.__dict__["_spoke"] = True
            self.do_handshake()
        except (ssl.SSLWantReadError, BlockingIOError):
            return False
        except ssl.SSLWantWriteError:
            return True  # our answer does not fit the send buffer: finish it in the worker
        except (OSError, ValueError) as exc:
            self.__dict__["_shaken"] = True
            self._log_failure(exc)
            return None
        finally:
            try:
                self.settimeout(before)
            except OSError:
                pass
        self.__dict__["_shaken"] = True
        return True

    def _log_failure(self, exc: BaseException) -> None:
        try:
            peer = self.getpeername()[0]
        except OSError:
            peer = "?"
        reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
        log.warning("TLS handshake with %s failed: %s", peer, reason)

    def recv_into(self, buffer, nbytes=0, flags=0):
        self._handshake_once()
        deadline = self.__dict__.get("_deadline")
        with _dropped_as_reset():
            if deadline is None:
                return super().recv_into(buffer, nbytes, flags)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("timed out")  # cheroot answers 408 and frees the worker
            before = self.gettimeout()
            self.settimeout(left if before is None else min(before, left))
            try:
                return super().recv_into(buffer, nbytes, flags)
            finally:
                self.settimeout(before)

    def recv(self, buflen=1024, flags=0):
        self._handshake_once()
        with _dropped_as_reset():
            return super().recv(buflen, flags)

    def send(self, data, flags=0):
        self._handshake_once()
        with _dropped_as_reset():
            return super().send(data, flags)

    def sendall(self, data, flags=0):
        self._handshake_once()
        with _dropped_as_reset():
            return super().sendall(data, flags)


@contextmanager
def _dropped_as_reset() -> Iterator[None]:
    """A TLS error after the handshake (the client closed the connection without TLS's
    goodbye, a damaged record) as ``ConnectionResetError``, which cheroot drops quietly: its
    own handling of ``SSLEOFError`` tries to answer 500 on the dead connection, fails again
    and ends the worker thread, and with it the server."""
    try:
        yield
    except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
        raise
    except ssl.SSLError as exc:
        raise ConnectionResetError(errno.ECONNRESET, f"TLS connection lost: {exc}") from None


def _set_deadline(sock, seconds: float | None) -> None:
    """Reads on ``sock`` (a :class:`HandshakeFirst`) must be done within ``seconds`` from now
    (None: no deadline)."""
    if isinstance(sock, HandshakeFirst):
        sock.__dict__["_deadline"] = None if seconds is None else time.monotonic() + seconds


class DeadlineRequest(cheroot_server.HTTPRequest):
    """cheroot's request with overall deadlines for reading it: the request line and headers
    within :data:`HEADERS_READ_S` of its first byte, the body within :data:`BODY_READ_S` (a
    client that sends a byte every few seconds gets 408, and its worker is free)."""

    def parse_request(self):
        _set_deadline(self.conn.socket, HEADERS_READ_S)
        try:
            super().parse_request()
        finally:
            _set_deadline(self.conn.socket, BODY_READ_S)

    def respond(self):
        try:
            super().respond()
        finally:
            _set_deadline(self.conn.socket, None)


class CountedConnection(cheroot_server.HTTPConnection):
    """cheroot's connection that tells :class:`WaitForFirstBytes` when it closes and
    :class:`LimitedServer` when a worker is done with it."""

    RequestHandlerClass = DeadlineRequest

    def communicate(self):
        try:
            return super().communicate()
        finally:
            done = getattr(self.server, "worker_done", None)
            if done is not None:
                done(self)

    def close(self):
        counted = self.__dict__.pop("_counted", None)
        if counted is not None:
            counted.release(self.remote_addr)
        done = getattr(self.server, "worker_done", None)
        if done is not None:
            done(self)
        super().close()


class WaitForFirstBytes(cheroot_connections.ConnectionManager):
    """cheroot's connection manager with new connections kept in the selector until they
    send something, and at most :data:`PER_ADDRESS` open connections per client address
    (and :data:`CONNECTION_LIMIT` in all)."""

    per_address = PER_ADDRESS
    limit = CONNECTION_LIMIT

    def __init__(self, server):
        super().__init__(server)
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    def release(self, addr) -> None:
        with self._lock:
            self._open[addr] -= 1
            if self._open[addr] <= 0:
                del self._open[addr]

    def _from_server_socket(self, server_socket):
        conn = super()._from_server_socket(server_socket)
        if conn is None:
            return None
        addr = conn.remote_addr
        with self._lock:
            over = self._open[addr] >= self.per_address or sum(self._open.values()) >= self.limit
            if not over:
                self._open[addr] += 1
                conn.__dict__["_counted"] = self
        if over:
            log.warning("refused a connection from %s: too many open", addr)
            try:
                conn.socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
            return None
        self.put(conn)  # to a worker once readable; expired after server.timeout if silent
        return None


class LimitedServer(wsgi.Server):
    """cheroot's WSGI server with :class:`WaitForFirstBytes`, :class:`CountedConnection` and,
    when given an ``ssl_adapter`` with a ``context``, :class:`HandshakeFirst` sockets."""

    ConnectionClass = CountedConnection
    keep_alive_conn_limit = CONNECTION_LIMIT

    def prepare(self):
        adapter = getattr(self, "ssl_adapter", None)
        if adapter is not None and getattr(adapter, "context", None) is not None:
            adapter.context.sslsocket_class = HandshakeFirst
        super().prepare()
        plain, self._connections = self._connections, WaitForFirstBytes(self)
        plain._selector.close()  # its only entry was the listening socket, still open
        self._busy_lock = threading.Lock()
        self._busy: Counter[str] = Counter()
        self._waiting: dict[str, deque] = {}
        self.busy_per_address = max(1, self.requests.min // 2)

    def worker_done(self, conn) -> None:
        """A worker is done with ``conn`` (answered, or closed): the next connection of the
        same address that waited for a worker gets one."""
        nxt = None
        with self._busy_lock:
            if not conn.__dict__.pop("_busy", False):
                return
            addr = conn.remote_addr
            self._busy[addr] -= 1
            queue_ = self._waiting.get(addr)
            if queue_:
                nxt = queue_.popleft()
                if not queue_:
                    del self._waiting[addr]
                self._busy[addr] += 1
                nxt.__dict__["_busy"] = True
            elif self._busy[addr] <= 0:
                del self._busy[addr]
        if nxt is not None:
            self._dispatch(nxt)

    def _dispatch(self, conn) -> None:
        try:
            self.requests.put(conn)
        except queue.Full:
            self.worker_done(conn)
            self._unservicable_conns.put(conn)  # type: ignore[attr-defined]

    def process_conn(self, conn):
        """A readable connection: a TLS one first finishes its handshake here, without a
        thread, one step per arrival of bytes (:meth:`HandshakeFirst.handshake_step`); it stays
        in the selector meanwhile and is expired ``timeout`` seconds after it was accepted.
        Then it gets a worker, unless its address holds ``busy_per_address`` (half the
        workers) already: it waits for one of them to finish (:meth:`worker_done`)."""
        sock = conn.socket
        if isinstance(sock, HandshakeFirst) and not sock.__dict__.get("_shaken"):
            done = sock.handshake_step()
            if done is None:
                conn.close()
                return
            if not done:
                self._connections._selector.register(sock.fileno(), selectors.EVENT_READ, data=conn)
                return
        addr = conn.remote_addr
        with self._busy_lock:
            if self._busy[addr] >= self.busy_per_address:  # its turn comes in worker_done
                self._waiting.setdefault(addr, deque()).append(conn)
                return
            self._busy[addr] += 1
            conn.__dict__["_busy"] = True
        self._dispatch(conn)
