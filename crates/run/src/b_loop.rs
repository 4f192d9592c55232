//! B's event loop as netlab wires it: tcpload's validating receiver with
//! the probe's echoes registered before it (the stop-and-wait probe's echo,
//! then the isochronous probe's on its own port), one `poll` loop
//! (`netlab_sys::event_loop`). The scenario's first receiver in B and the
//! standalone `sink` role are this; the flows' receivers are tcpload's
//! receiver alone.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use netlab_probe::{EchoHandler, EchoResponder, EchoStats, ProbeError};
use netlab_sys::event_loop::Handler;
use netlab_tcpload::sink::{ReceiverLog, Sink, SinkConfig};
use netlab_tcpload::TcpLoadError;

/// What B's loop serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BLoopConfig {
    /// The TCP receiver (listen address, hard end, recv size).
    pub receiver: SinkConfig,
    /// The stop-and-wait probe's UDP echo address, if it is served.
    pub udp_echo: Option<SocketAddr>,
    /// The isochronous probe's echo address, if it is served.
    pub iso_echo: Option<SocketAddr>,
}

/// Binding or running B's loop failed: the receiver's side or an echo's.
#[derive(Debug, thiserror::Error)]
pub enum BLoopError {
    /// The TCP receiver (bind, poll, accept).
    #[error(transparent)]
    Load(#[from] TcpLoadError),
    /// An echo's socket.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// B's bound sockets and the common origin t0.
#[derive(Debug)]
pub struct BLoop {
    sink: Sink,
    echo: Option<EchoHandler>,
    iso_echo: Option<EchoHandler>,
}

impl BLoop {
    /// Binds the echoes, then the receiver, in the calling thread's
    /// namespace (call it inside B); t0 is set last, at the receiver's bind.
    pub fn bind(cfg: BLoopConfig) -> Result<BLoop, BLoopError> {
        let bind = |a: SocketAddr| EchoResponder::bind(a).map(EchoHandler::new);
        let echo = cfg.udp_echo.map(bind).transpose()?;
        let iso_echo = cfg.iso_echo.map(bind).transpose()?;
        let sink = Sink::bind(cfg.receiver)?;
        Ok(BLoop {
            sink,
            echo,
            iso_echo,
        })
    }

    /// The common clock origin.
    pub fn t0(&self) -> Instant {
        self.sink.t0()
    }

    /// The bound TCP address.
    pub fn local_addr(&self) -> Result<SocketAddr, TcpLoadError> {
        self.sink.local_addr()
    }

    /// The bound address of the stop-and-wait probe's echo, if served.
    pub fn echo_addr(&self) -> Option<SocketAddr> {
        self.echo.as_ref().and_then(EchoHandler::local_addr)
    }

    /// Serves everything until the receiver's hard end or `stop`; the log
    /// carries what each echo served.
    pub fn run(self, stop: Option<&AtomicBool>) -> Result<ReceiverLog<EchoStats>, TcpLoadError> {
        let BLoop {
            sink,
            mut echo,
            mut iso_echo,
        } = self;
        let mut first: Vec<&mut dyn Handler> = Vec::with_capacity(2);
        first.extend(echo.as_mut().map(|h| h as &mut dyn Handler));
        first.extend(iso_echo.as_mut().map(|h| h as &mut dyn Handler));
        let mut log = sink.run_serving(&mut first, stop)?;
        drop(first);
        if let Some(o) = echo.map(EchoHandler::finish) {
            log.set_echo(o.addr, o.stats, o.error);
        }
        if let Some(o) = iso_echo.map(EchoHandler::finish) {
            log.set_iso_echo(o.addr, o.stats, o.error);
        }
        Ok(log)
    }
}
