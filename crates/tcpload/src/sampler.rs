//! TCP state sampling over sock_diag (method §6): what `ss -tinm` shows for
//! the sender's socket, every 200 ms nominal.
//!
//! Pure parts: the request bytes ([`build_request`]) and the response
//! parser ([`parse_dump`]); the schedule is `netlab_os::Pacer` (a fixed
//! grid, missed slots skipped). The I/O edge is [`DiagSocket`] (the shared
//! `netlab_os::NetlinkSocket` for `NETLINK_SOCK_DIAG`: open it inside the
//! sender's namespace, e.g. with `Netns::run`, since sock_diag answers for
//! the namespace the netlink socket lives in) and [`TcpSampler`], a
//! bounded, stoppable thread.

use netlab_os::threads::{spawn_pooled, Pooled};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netlab_os::wire::{ErrorMessage, Messages, NLMSG_DONE, NLMSG_ERROR};
use netlab_os::{NetlinkSocket, Pacer, Protocol, StopFlag};
use netlink_packet_core::{
    NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_DUMP, NLM_F_REQUEST,
};
use netlink_packet_sock_diag::{
    constants::{AF_INET, AF_INET6, IPPROTO_TCP},
    inet::{nlas::Nla, ExtensionFlags, InetRequest, InetResponse, SocketId, StateFlags},
    SockDiagMessage,
};

pub use crate::record::{DiagRecord, FlowId, SamplerEnd, SamplerLog, SkMemInfo, TcpSample};
use crate::tcp_info::TcpInfoView;
use crate::TcpLoadError;

/// Builds the sock_diag dump request (all TCP states of `family`, asking
/// for INFO, CONG and SKMEMINFO). The kernel does not filter a dump by the
/// socket id, so [`parse_dump`] matches the flow.
pub fn build_request(family: u8, seq: u32) -> Vec<u8> {
    let mut hdr = NetlinkHeader::default();
    hdr.flags = NLM_F_REQUEST | NLM_F_DUMP;
    hdr.sequence_number = seq;
    let socket_id = if family == AF_INET6 {
        SocketId::new_v6()
    } else {
        SocketId::new_v4()
    };
    let mut msg = NetlinkMessage::new(
        hdr,
        SockDiagMessage::InetRequest(InetRequest {
            family,
            protocol: IPPROTO_TCP,
            extensions: ExtensionFlags::INFO | ExtensionFlags::CONG | ExtensionFlags::SKMEMINFO,
            states: StateFlags::all(),
            socket_id,
        })
        .into(),
    );
    msg.finalize();
    let mut buf = vec![0; msg.buffer_len()];
    msg.serialize(&mut buf);
    buf
}

/// Address family code for `flow`.
pub fn family_of(flow: &FlowId) -> u8 {
    if flow.local.is_ipv6() {
        AF_INET6
    } else {
        AF_INET
    }
}

/// What one receive buffer of a dump contained.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DumpChunk {
    /// The flow's record, if it was in this chunk.
    pub found: Option<DiagRecord>,
    /// Records seen in this chunk (any socket).
    pub records: usize,
    /// The dump's `NLMSG_DONE` was seen.
    pub done: bool,
}

/// Parses one receive buffer (or a whole answer) of a sock_diag dump and
/// picks the record of `flow`.
pub fn parse_dump(buf: &[u8], flow: &FlowId) -> Result<DumpChunk, TcpLoadError> {
    let mut out = DumpChunk::default();
    let mut offset = 0;
    for msg in Messages::new(buf) {
        let msg = msg.map_err(|e| TcpLoadError::Diag(format!("at byte {offset}: {e}")))?;
        match msg.kind() {
            NLMSG_DONE => out.done = true,
            NLMSG_ERROR => {
                let err = ErrorMessage::new_checked(&msg)
                    .map_err(|e| TcpLoadError::Diag(format!("at byte {offset}: {e}")))?;
                if !err.is_ack() {
                    return Err(TcpLoadError::Diag(format!(
                        "kernel answered the sock_diag dump with {} ({})",
                        netlab_os::errno_name(err.errno()),
                        err.errno()
                    )));
                }
            }
            _ => {
                let decoded =
                    <NetlinkMessage<SockDiagMessage>>::deserialize(msg.bytes()).map_err(|e| {
                        TcpLoadError::Diag(format!(
                            "decode sock_diag message at byte {offset}: {e}"
                        ))
                    })?;
                if let NetlinkPayload::InnerMessage(SockDiagMessage::InetResponse(resp)) =
                    decoded.payload
                {
                    out.records += 1;
                    if matches_flow(&resp, flow) {
                        out.found = Some(record_of(&resp)?);
                    }
                }
            }
        }
        offset += netlab_os::wire::align4(msg.len());
    }
    Ok(out)
}

fn matches_flow(resp: &InetResponse, flow: &FlowId) -> bool {
    let id = &resp.header.socket_id;
    id.source_port == flow.local.port()
        && id.destination_port == flow.remote.port()
        && id.source_address == flow.local.ip()
        && id.destination_address == flow.remote.ip()
}

fn record_of(resp: &InetResponse) -> Result<DiagRecord, TcpLoadError> {
    let mut rec = DiagRecord {
        state: resp.header.state,
        inode: resp.header.inode,
        recv_queue: resp.header.recv_queue,
        send_queue: resp.header.send_queue,
        info: None,
        congestion: None,
        skmeminfo: None,
    };
    for nla in &resp.nlas {
        match nla {
            Nla::TcpInfo(bytes) => rec.info = Some(TcpInfoView::new(bytes)?.decode()),
            Nla::Congestion(name) => rec.congestion = Some(name.trim_end_matches('\0').to_owned()),
            Nla::MemInfo(m) => {
                rec.skmeminfo = Some(SkMemInfo {
                    rmem_alloc: m.receive_queue,
                    rcvbuf: m.receive_queue_max,
                    wmem_alloc: m.bottom_send_queues,
                    sndbuf: m.send_queue_max,
                    fwd_alloc: m.cache,
                    wmem_queued: m.send_queue,
                    optmem: m.options,
                    backlog: m.backlog_queue_length,
                    drops: m.drops,
                })
            }
            _ => {}
        }
    }
    Ok(rec)
}

/// A `NETLINK_SOCK_DIAG` socket (I/O edge). Open it inside the namespace
/// whose sockets you want to see.
#[derive(Debug)]
pub struct DiagSocket {
    sock: NetlinkSocket,
}

/// Upper bound on the wall time of one dump (the sender's namespace holds
/// a handful of sockets; this only bounds a misbehaving kernel).
const MAX_DUMP_TIME: Duration = Duration::from_secs(2);

impl DiagSocket {
    /// Opens a sock_diag socket in the calling thread's namespace; one dump
    /// may take at most 2 s.
    pub fn open() -> Result<Self, TcpLoadError> {
        let sock = NetlinkSocket::open(Protocol::SockDiag, "the sender's namespace")?
            .with_deadline(MAX_DUMP_TIME);
        Ok(Self { sock })
    }

    /// Dumps the TCP sockets of `family` in the socket's namespace and
    /// returns the raw reply: whole netlink messages, ending with
    /// `NLMSG_DONE` (what the fixtures keep). Bounded by the socket's 2 s
    /// deadline.
    pub fn dump_raw(&self, family: u8) -> Result<Vec<u8>, TcpLoadError> {
        Ok(self
            .sock
            .dump(&build_request(family, 0), "sock_diag dump of TCP sockets")?)
    }

    /// Dumps the TCP sockets of the namespace and returns the record of
    /// `flow` (None if no such socket exists).
    pub fn query(&self, flow: &FlowId) -> Result<Option<DiagRecord>, TcpLoadError> {
        let raw = self.dump_raw(family_of(flow))?;
        Ok(parse_dump(&raw, flow)?.found)
    }
}

/// Sampler settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerConfig {
    /// Nominal spacing (200 ms).
    pub interval: Duration,
    /// Hard bound on the sampler's life from its start.
    pub max_duration: Duration,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        Self {
            interval: Duration::from_millis(200),
            max_duration: Duration::from_secs(18),
        }
    }
}

impl SamplerLog {
    /// The log of a sampler whose flow never connected: no samples, and
    /// the unspecified address for both ends.
    fn empty(cfg: &SamplerConfig, stop: &StopFlag) -> SamplerLog {
        let none = SocketAddr::from(([0, 0, 0, 0], 0));
        SamplerLog {
            flow: FlowId {
                local: none,
                remote: none,
            },
            interval_s: cfg.interval.as_secs_f64(),
            samples: Vec::new(),
            not_found_s: Vec::new(),
            errors: Vec::new(),
            end: if stop.is_stopped() {
                SamplerEnd::Stopped
            } else {
                SamplerEnd::Deadline
            },
        }
    }
}

/// Keeps at most this many error entries (the count still bounds the loop).
const MAX_KEPT_ERRORS: usize = 64;

/// Runs the sampling loop on the calling thread until `stop` is set or
/// `cfg.max_duration` elapses. `t0` is the common origin;
/// `on_sample` sees each sample as it is taken (e.g. for live output).
pub fn sample_loop(
    sock: DiagSocket,
    flow: FlowId,
    t0: Instant,
    cfg: SamplerConfig,
    stop: &StopFlag,
    on_sample: &mut dyn FnMut(&TcpSample),
) -> SamplerLog {
    let started = Instant::now();
    let deadline = started + cfg.max_duration;
    let mut log = SamplerLog {
        flow,
        interval_s: cfg.interval.as_secs_f64(),
        samples: Vec::new(),
        not_found_s: Vec::new(),
        errors: Vec::new(),
        end: SamplerEnd::Deadline,
    };
    let since = |i: Instant| i.saturating_duration_since(t0);
    let mut pacer = Pacer::new(since(started), cfg.interval);
    loop {
        let start = Instant::now();
        if start >= deadline {
            break;
        }
        match sock.query(&flow) {
            Ok(Some(record)) => {
                let sample = TcpSample {
                    start_s: since(start).as_secs_f64(),
                    end_s: since(Instant::now()).as_secs_f64(),
                    record,
                };
                on_sample(&sample);
                log.samples.push(sample);
            }
            Ok(None) => log.not_found_s.push(since(start).as_secs_f64()),
            Err(e) => {
                if log.errors.len() < MAX_KEPT_ERRORS {
                    log.errors.push((since(start).as_secs_f64(), e.to_string()));
                }
            }
        }
        let wake = (t0 + pacer.advance(since(Instant::now()))).min(deadline);
        if stop.sleep_until(wake) {
            log.end = SamplerEnd::Stopped;
            return log;
        }
    }
    log
}

/// A sampler running on its own thread.
#[derive(Debug)]
pub struct SamplerHandle {
    stop: StopFlag,
    /// Taken by [`SamplerHandle::stop`]; still here when it is dropped.
    thread: Option<Pooled<SamplerLog>>,
}

/// Starts sampling `flow` on a new thread (the netlink socket already
/// belongs to the right namespace, so the thread may run anywhere).
pub struct TcpSampler;

impl TcpSampler {
    /// Spawns the sampling thread.
    pub fn spawn(
        sock: DiagSocket,
        flow: FlowId,
        t0: Instant,
        cfg: SamplerConfig,
    ) -> Result<SamplerHandle, TcpLoadError> {
        Self::spawn_with(sock, flow, t0, cfg, |_| {})
    }

    /// Spawns the sampling thread; `on_sample` is called on that thread
    /// with each sample as it is taken.
    pub fn spawn_with(
        sock: DiagSocket,
        flow: FlowId,
        t0: Instant,
        cfg: SamplerConfig,
        mut on_sample: impl FnMut(&TcpSample) + Send + 'static,
    ) -> Result<SamplerHandle, TcpLoadError> {
        let stop = StopFlag::new();
        let flag = stop.clone();
        let thread = spawn_pooled("tcp-sampler", None, move || {
            sample_loop(sock, flow, t0, cfg, &flag, &mut on_sample)
        })
        .map_err(|source| TcpLoadError::Io {
            what: "spawn sampler thread",
            source,
        })?;
        Ok(SamplerHandle {
            stop,
            thread: Some(thread),
        })
    }
}

/// Where a sampler started before its flow connected learns the flow
/// ([`TcpSampler::spawn_before_connect`]). Dropping it unused (the connect
/// failed) ends the sampler with an empty log.
#[derive(Debug)]
pub struct PendingFlow {
    start: PendingStart,
    t0: Instant,
}

impl PendingFlow {
    /// Hands the flow to the sampler. Call it before the connect (a bound
    /// [`crate::sender::SenderSocket`] knows its flow), so no thread wakes
    /// between the connect and the first write (method §4.1); until the
    /// connection exists its queries find no flow.
    pub fn connected(self, flow: FlowId) {
        self.start.connected(flow, self.t0);
    }
}

/// Where a sampler started ahead of its flow and of the common origin
/// learns both ([`TcpSampler::spawn_waiting`]). Dropping it unused ends
/// the sampler at once with an empty log.
#[derive(Debug)]
pub struct PendingStart(std::sync::mpsc::SyncSender<(FlowId, Instant)>);

impl PendingStart {
    /// Hands the flow and `t0` to the sampler, just before the connect as
    /// [`PendingFlow::connected`] does.
    pub fn connected(self, flow: FlowId, t0: Instant) {
        // The sampler may have ended already (stopped, or past its wait);
        // then there is nobody to tell.
        let _ = self.0.send((flow, t0));
    }
}

/// How often a waiting sampler looks at its stop.
const WAIT_POLL: Duration = Duration::from_millis(100);

impl TcpSampler {
    /// Spawns a sampling thread for a flow that does not exist yet: it
    /// waits (bounded by `cfg.max_duration` and its stop) for
    /// [`PendingFlow::connected`], then samples as [`TcpSampler::spawn_with`]
    /// does for at most `cfg.max_duration`, its first dump one interval
    /// after the flow was handed over.
    /// Nothing of the sampler (thread start, socket, dump) sits between the
    /// sender's connect and its first writes: a dump taken as the flow is
    /// handed over, just before the connect, ran beside the handshake and
    /// the first write on a 2-core machine (method §13.5).
    pub fn spawn_before_connect(
        sock: DiagSocket,
        t0: Instant,
        cfg: SamplerConfig,
        on_sample: impl FnMut(&TcpSample) + Send + 'static,
    ) -> Result<(PendingFlow, SamplerHandle), TcpLoadError> {
        let (start, handle) = Self::spawn_waiting(sock, cfg, cfg.max_duration, on_sample)?;
        Ok((PendingFlow { start, t0 }, handle))
    }

    /// Spawns a sampling thread before the common origin is known, e.g.
    /// before a scenario's t0, so that starting it costs its flow nothing
    /// at the flow's start (a thread start took tens of ms under
    /// user-mode Linux). It waits at most `wait` (and until its stop,
    /// looked at every 100 ms) for [`PendingStart::connected`]; from then
    /// it lives at most `cfg.max_duration`, its first dump one interval
    /// after the handover.
    pub fn spawn_waiting(
        sock: DiagSocket,
        cfg: SamplerConfig,
        wait: Duration,
        mut on_sample: impl FnMut(&TcpSample) + Send + 'static,
    ) -> Result<(PendingStart, SamplerHandle), TcpLoadError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(FlowId, Instant)>(1);
        let stop = StopFlag::new();
        let flag = stop.clone();
        let thread = spawn_pooled("tcp-sampler", None, move || {
            let waited = Instant::now() + wait;
            loop {
                let now = Instant::now();
                let (flow, t0) =
                    match rx.recv_timeout(waited.saturating_duration_since(now).min(WAIT_POLL)) {
                        Ok(handed) => handed,
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                            if now < waited && !flag.is_stopped() =>
                        {
                            continue
                        }
                        // Never connected: an empty log, ended as asked.
                        Err(_) => return SamplerLog::empty(&cfg, &flag),
                    };
                // The sender connects and writes now: the first dump
                // waits one interval (a stop ends the wait, and the
                // loop then takes its one last sample).
                let deadline = Instant::now() + cfg.max_duration;
                let _ = flag.sleep_until((Instant::now() + cfg.interval).min(deadline));
                let left = SamplerConfig {
                    max_duration: deadline.saturating_duration_since(Instant::now()),
                    ..cfg
                };
                return sample_loop(sock, flow, t0, left, &flag, &mut on_sample);
            }
        })
        .map_err(|source| TcpLoadError::Io {
            what: "spawn sampler thread",
            source,
        })?;
        Ok((
            PendingStart(tx),
            SamplerHandle {
                stop,
                thread: Some(thread),
            },
        ))
    }
}

impl SamplerHandle {
    /// Stops the sampler (at most one query later) and returns its log.
    pub fn stop(mut self) -> Result<SamplerLog, TcpLoadError> {
        self.stop.stop();
        self.thread
            .take()
            .ok_or_else(|| TcpLoadError::Diag("sampler already joined".into()))?
            .join()
            .map_err(|_| TcpLoadError::Diag("sampler thread panicked".into()))
    }
}

/// A handle dropped unstopped (its flow never started, or its owner
/// failed first) still stops its thread and joins it, so no sampler
/// outlives its owner: the stop ends it within one query or wait poll.
impl Drop for SamplerHandle {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop.stop();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampler_told_the_flow_before_the_connect_dumps_one_interval_later() {
        // Loopback in the test's own namespace: the first dump must not run
        // beside the connect and the first writes.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = l.local_addr().unwrap();
        let t0 = Instant::now();
        let cfg = SamplerConfig {
            interval: Duration::from_millis(100),
            max_duration: Duration::from_secs(5),
        };
        let (pending, sampler) =
            TcpSampler::spawn_before_connect(DiagSocket::open().unwrap(), t0, cfg, |_| {}).unwrap();
        let sock = crate::new_sender_socket("reno", to).unwrap();
        let handed = t0.elapsed().as_secs_f64();
        pending.connected(sock.flow());
        let tx = crate::Sender::connect(sock, crate::SenderConfig::new(to), t0).unwrap();
        let (_peer, _) = l.accept().unwrap();
        std::thread::sleep(Duration::from_millis(450));
        let log = sampler.stop().unwrap();
        drop(tx);
        assert_eq!(log.flow.remote, to);
        let first = log.samples.first().expect("sampled after the wait");
        assert!(
            first.start_s >= handed + 0.1,
            "first dump at {} s, the flow handed over at {handed} s",
            first.start_s
        );
        assert!(log.not_found_s.is_empty(), "{:?}", log.not_found_s);
        assert!(log.samples.len() >= 2, "{log:?}");
    }

    #[test]
    fn request_bytes_are_a_tcp_dump_with_info_cong_skmeminfo() {
        let b = build_request(AF_INET, 7);
        // nlmsghdr(16) + inet_diag_req_v2(56)
        assert_eq!(b.len(), 72);
        assert_eq!(u32::from_ne_bytes(b[0..4].try_into().unwrap()), 72);
        assert_eq!(u16::from_ne_bytes(b[4..6].try_into().unwrap()), 20); // SOCK_DIAG_BY_FAMILY
        assert_eq!(u16::from_ne_bytes(b[6..8].try_into().unwrap()), 0x301); // REQUEST|DUMP
        assert_eq!(u32::from_ne_bytes(b[8..12].try_into().unwrap()), 7);
        assert_eq!(b[16], 2); // AF_INET
        assert_eq!(b[17], 6); // IPPROTO_TCP
                              // ext bits: INFO(2)→1<<1, CONG(4)→1<<3, SKMEMINFO(7)→1<<6
        assert_eq!(b[18], (1 << 1) | (1 << 3) | (1 << 6));
        assert_eq!(u32::from_ne_bytes(b[20..24].try_into().unwrap()), 0xffe);
    }

    /// Real kernel bytes (host 6.18, x86_64): the sock_diag dump reply of A's
    /// namespace during a Reno load through TBF 5mbit + pfifo (see
    /// fixtures/tcpload/README.md). Expected values: decoded independently
    /// with Python `struct` from the uapi layout; the static ones also match
    /// `ss -tinm` read right after, the moving ones are close to it.
    #[cfg(target_endian = "little")]
    #[test]
    fn real_dump_fixture_decodes_to_the_kernel_values() {
        let raw = include_bytes!("../../../fixtures/tcpload/sock_diag_dump_reno_tbf5mbit.bin");
        let flow = FlowId {
            local: "10.20.1.2:45856".parse().unwrap(),
            remote: "10.20.2.2:46020".parse().unwrap(),
        };
        let chunk = parse_dump(raw, &flow).unwrap();
        assert!(chunk.done);
        assert_eq!(chunk.records, 1);
        let rec = chunk.found.expect("flow in fixture");
        assert_eq!(rec.state, 1);
        assert_eq!((rec.recv_queue, rec.send_queue), (0, 3_165_328));
        assert_eq!(rec.congestion.as_deref(), Some("reno"));
        assert_eq!(
            rec.skmeminfo,
            Some(SkMemInfo {
                rmem_alloc: 0,
                rcvbuf: 131_072,
                wmem_alloc: 0,
                sndbuf: 3_801_600,
                fwd_alloc: 304,
                wmem_queued: 3_362_512,
                optmem: 0,
                backlog: 0,
                drops: 0,
            })
        );
        let i = rec.info.expect("tcp_info");
        assert_eq!(i.info_len, 280);
        // Static: equal to ss (wscale:10,10 mss:1448 pmtu:1500 rcvmss:536 advmss:1448).
        assert_eq!((i.snd_wscale, i.rcv_wscale), (10, 10));
        assert_eq!(
            (i.mss, i.pmtu, i.rcv_mss, i.advmss),
            (1448, 1500, 536, 1448)
        );
        assert_eq!((i.rcv_space, i.rcv_ssthresh), (14_480, 64_088));
        assert_eq!(i.min_rtt_us, 42);
        assert_eq!(i.rwnd_limited_us, 232_000);
        assert_eq!(i.ssthresh, crate::tcp_info::INFINITE_SSTHRESH); // ss omits it
                                                                    // Moving: exact kernel values (ss a moment later: rtt 1393.95/38.764,
                                                                    // cwnd 1180, bytes_acked 1691721, delivered 1171).
        assert_eq!(i.rto_us, 1_592_000);
        assert_eq!((i.rtt_us, i.rttvar_us), (1_389_110, 38_766));
        assert_eq!((i.cwnd, i.unacked), (1176, 1176));
        assert_eq!(i.bytes_sent, Some(3_388_776));
        assert_eq!(i.bytes_acked, 1_685_929);
        assert_eq!((i.segs_out, i.segs_in, i.data_segs_out), (2344, 516, 2342));
        assert_eq!((i.pacing_rate, i.delivery_rate), (2_451_710, 598_315));
        assert_eq!((i.delivered, i.delivered_ce), (1167, 0));
        assert_eq!(i.busy_time_us, 2_796_000);
        assert_eq!(i.notsent_bytes, 1_462_480);
        assert_eq!((i.snd_wnd, i.rcv_wnd), (Some(3_138_560), Some(64_512)));
        assert_eq!(i.last_data_recv_ms, 2800);
        assert_eq!((i.lost, i.retrans, i.total_retrans), (0, 0, 0));
    }
}
