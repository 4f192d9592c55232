//! The scenario's workers, each started in its namespace on its own
//! thread: B's first receiver (which set t0) and one receiver per flow,
//! the capture on B, a qdisc sampler per egress in R, the probes in A, and
//! each flow's sender with its tcp_info sampler, made ready before t0 and
//! released at the flow's mark.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_ecn::Capture;
use netlab_os::event_loop::Handler;
use netlab_probe::{connect_socket, run_iso_probe, run_probe, IsoLog, ProbeLog};
use netlab_qdisc::Sampler;
use netlab_tcpload::pattern::PatternSource;
use netlab_tcpload::sampler::DiagSocket;
use netlab_tcpload::sink::Sink;
use netlab_tcpload::{
    new_sender_socket, PendingStart, SamplerHandle, Sender, SenderConfig, SenderSocket, TcpSampler,
};
use netlab_topology::netns::Netns;
use netlab_topology::Topology;

use super::{ends, enter, hook_step, host_netns, load_step, qdisc_step, Runner, Scene};
use crate::b_loop::{BLoop, BLoopOutput};
use crate::hooks::SenderOutput;
use crate::progress::Live;
use crate::scenario::collect::{ReadySender, ReceiverOutput, Workers};
use crate::scenario::error::ScenarioError;
use crate::scenario::worker::{spawn_in, Ready};
use crate::setup::ScenarioSetup;

impl Runner<'_, '_> {
    /// Each flow's own receiver, ready since before t0, released with it
    /// after the probes: a listener accepts without its thread, and the
    /// threads' wake-ups would delay the probes' first sends.
    pub(super) fn start_flow_receivers(
        &self,
        scene: &Scene<'_>,
        receivers: Vec<Option<Ready<ReceiverOutput>>>,
        workers: &mut Workers,
    ) {
        for (i, r) in receivers.into_iter().enumerate() {
            workers.receivers[i] = r.and_then(|r| r.release(scene.t0));
        }
    }

    /// The capture on B (opened before anything connected), recording the
    /// headers too when asked; a headers file that could not be created is
    /// kept for the result, and the evidence is captured all the same.
    pub(super) fn start_capture(
        &self,
        scene: &Scene<'_>,
        capture: Option<Capture>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let (Some(capture), Some((_, filter))) = (capture, plan.capture_flow) else {
            return Ok(());
        };
        let recorder = match crate::scenario::pcap::open_headers(self.out, plan, scene.t0_unix) {
            None => None,
            Some(Ok(r)) => Some(r),
            Some(Err(not_created)) => {
                workers.headers_not_created = Some(not_created);
                None
            }
        };
        let t0 = scene.t0;
        workers.capture = Some(spawn_in(
            &scene.topo.b,
            "capture",
            "b-capture",
            move |stop| capture.run_recording(filter, stop.flag(), t0, recorder),
        )?);
        Ok(())
    }

    /// One qdisc sampler per egress, in R: slots every interval from its
    /// own start (0.03-0.13 s after t0 in the guest), its times from t0.
    pub(super) fn start_qdisc_samplers(
        &self,
        scene: &Scene<'_>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        for e in scene.egresses {
            let sampling = netlab_qdisc::QdiscSamplerConfig::new(
                plan.qdisc_sample_interval,
                scene.t0,
                scene.t0 + plan.qdisc_sampling_end,
            );
            workers.qdisc_samplers.push((
                e.slot,
                Sampler::start(&scene.topo.r, e.ifindex, e.psched, sampling)
                    .map_err(qdisc_step("starting the qdisc sampler"))?,
            ));
        }
        Ok(())
    }

    /// The probe clients in A, ready since before t0, released with it:
    /// each on its own schedule from t0.
    pub(super) fn start_probes(
        &self,
        scene: &Scene<'_>,
        probe: Option<Ready<ProbeLog>>,
        iso_probe: Option<Ready<IsoLog>>,
        workers: &mut Workers,
    ) {
        workers.probe = probe.and_then(|r| r.release(scene.t0));
        workers.iso_probe = iso_probe.and_then(|r| r.release(scene.t0));
    }

    /// The stop-and-wait probe's client (method §5), ready in A: its socket
    /// connected to B's echo, its thread waiting for t0.
    fn ready_probe(
        &self,
        topo: &Topology,
        live: &Arc<Live>,
        bound: Duration,
    ) -> Result<Option<Ready<ProbeLog>>, ScenarioError> {
        let Some(plan) = &self.plan.probe else {
            return Ok(None);
        };
        let from = host_netns(topo, plan.host);
        let sock = probe_socket(from, plan.target, "the probe", "probe socket")?;
        let (config, live) = (plan.config.clone(), live.clone());
        Ready::spawn(from, "probe", "a-probe", bound, move |t0, stop| {
            run_probe(&sock, t0, &config, Some(stop.flag()), |req| {
                match req.rtt_ms {
                    Some(ms) => live
                        .last_rtt_us
                        .store((ms * 1000.0).max(1.0) as u64, Ordering::Relaxed),
                    None => {
                        live.timeouts.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
            .map_err(|e| e.to_string())
        })
        .map(Some)
    }

    /// The isochronous probe's client, ready in A: on its fixed
    /// grid from t0 to the end once released, against B's stamping echo on
    /// its own port.
    fn ready_iso_probe(
        &self,
        topo: &Topology,
        bound: Duration,
    ) -> Result<Option<Ready<IsoLog>>, ScenarioError> {
        let Some(plan) = &self.plan.iso_probe else {
            return Ok(None);
        };
        let from = host_netns(topo, plan.host);
        let sock = probe_socket(
            from,
            plan.target,
            "the isochronous probe",
            "isochronous probe socket",
        )?;
        let config = plan.config.clone();
        Ready::spawn(
            from,
            "isochronous probe",
            "a-iso-probe",
            bound,
            move |t0, stop| {
                run_iso_probe(&sock, t0, &config, Some(stop.flag()), |_| {})
                    .map_err(|e| e.to_string())
            },
        )
        .map(Some)
    }

    /// Every worker that can wait made ready before t0 (method §3.3): the
    /// probes' clients, and each flow's receiver and sender:
    /// the receiver's listener bound in its namespace and its thread
    /// started there, waiting to be timed from t0; the sender's socket
    /// bound and its sock_diag socket opened in the sending namespace, the
    /// pattern's first lap computed, its tcp_info sampler's thread and its
    /// own thread started, both waiting for [`Runner::release_sender`].
    /// Done after t0, one flow after another, that took 0.07 s a flow in
    /// the guest (more on a busy host), and done at each flow's mark, 0.2
    /// to 1 s: twelve flows planned at 1 s started 3.3-11.7 s after t0.
    pub(super) fn ready_workers(
        &self,
        topo: &Topology,
        live: &Arc<Live>,
    ) -> Result<ReadyWorkers, ScenarioError> {
        let plan = self.plan;
        let bound = plan.timeline.end() + RELEASE_ALLOWANCE;
        // B's loop: its thread waits in B for the loop bound at t0, so
        // nothing is started between t0 and its first poll.
        let b_loop = Ready::spawn(
            &topo.b,
            "receiver",
            "b-receiver",
            bound,
            |clock_sink: BLoop, stop| {
                let mut wake = stop.wake();
                clock_sink
                    .run_logged(Some(stop.flag()), wake.as_mut())
                    .map_err(|e| e.to_string())
            },
        )?;
        let mut ready = ReadyWorkers {
            b_loop,
            probe: self.ready_probe(topo, live, bound)?,
            iso_probe: self.ready_iso_probe(topo, bound)?,
            receivers: Vec::new(),
            senders: Vec::new(),
        };
        // Every flow's sockets first, each namespace entered once for all
        // of them (method §3.5).
        let (mut sinks, mut sockets) = self.flow_sockets(topo)?;
        // One pattern lap per block size, shared by the senders (§4.1)
        // and computed once per run.
        for (i, flow) in plan.flows.iter().enumerate() {
            let receiver = match sinks[i].take() {
                None => None,
                Some(sink) => {
                    let (_, (ns, _)) = ends(topo, flow.spec.direction, flow.host);
                    Some(Ready::spawn(
                        ns,
                        "flow receiver",
                        "flow-receiver",
                        bound,
                        move |t0, stop| {
                            let mut wake = stop.wake();
                            let mut first: Vec<&mut dyn Handler> =
                                wake.iter_mut().map(|w| w as &mut dyn Handler).collect();
                            sink.starting_at(t0)
                                .run_serving(&mut first, Some(stop.flag()))
                                .map_err(|e| e.to_string())
                        },
                    )?)
                }
            };
            ready.receivers.push(receiver);
            let sockets = sockets[i]
                .take()
                .expect("flow_sockets made every flow's sender sockets");
            let block = flow.sender.block_size.max(1);
            let pattern = PatternSource::shared(block);
            ready.senders.push(Some(
                self.ready_sender(topo, live, i, bound, sockets, &pattern)?,
            ));
        }
        Ok(ready)
    }

    /// Every flow's sockets, made inside their namespaces with one entry
    /// per namespace: the receiver's listener bound (none where the caller
    /// receives the flow), the sender's socket bound and its sock_diag
    /// socket opened; by flow.
    #[allow(clippy::type_complexity)]
    fn flow_sockets(
        &self,
        topo: &Topology,
    ) -> Result<(Vec<Option<Sink>>, Vec<Option<(SenderSocket, DiagSocket)>>), ScenarioError> {
        let flows = &self.plan.flows;
        let receiving: Vec<_> = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.receiver.is_some())
            .map(|(i, f)| (i, ends(topo, f.spec.direction, f.host).1))
            .collect();
        let sinks = per_netns(&receiving, "a flow's receiver", |i| {
            let cfg = flows[i].receiver.expect("only flows with a receiver");
            Sink::bind(cfg).map_err(load_step("binding a flow's receiver"))
        })?;
        let sending: Vec<_> = flows
            .iter()
            .enumerate()
            .map(|(i, f)| (i, ends(topo, f.spec.direction, f.host).0))
            .collect();
        let sockets = per_netns(&sending, "a sender", |i| {
            let flow = &flows[i];
            let sock = new_sender_socket(&flow.sender.cc, flow.sender.to)
                .map_err(load_step("sender socket"))?;
            let diag = DiagSocket::open().map_err(load_step("sock_diag socket"))?;
            Ok((sock, diag))
        })?;
        Ok((by_flow(flows.len(), sinks), by_flow(flows.len(), sockets)))
    }

    /// Flow `i`'s sender, ready (see [`Runner::ready_workers`]) from its
    /// bound socket and its sock_diag socket.
    fn ready_sender(
        &self,
        topo: &Topology,
        live: &Arc<Live>,
        i: usize,
        bound: Duration,
        (mut sock, diag): (SenderSocket, DiagSocket),
        pattern: &PatternSource,
    ) -> Result<ReadySender, ScenarioError> {
        let flow = &self.plan.flows[i];
        let ((ns, _), _) = ends(topo, flow.spec.direction, flow.host);
        sock.share_pattern(pattern);
        // The tcp_info sampler's thread too, waiting for its flow.
        let live = live.clone();
        let (pending, sampler) = TcpSampler::spawn_waiting(diag, flow.tcp_info, bound, move |s| {
            if let Some(info) = &s.record.info {
                let f = &live.flows[i];
                f.bytes_acked.store(info.bytes_acked, Ordering::Relaxed);
                f.acked_at_us
                    .store((s.end_s * 1e6) as u64, Ordering::Relaxed);
            }
        })
        .map_err(load_step("tcp_info sampler"))?;
        let sender_cfg = flow.sender.clone();
        let id = sock.flow();
        // Unreleased, the closure is dropped with the sampler's handle,
        // which stops and joins the sampler.
        let worker = Ready::spawn(ns, "sender", "sender", bound, move |t0, _stop| {
            run_sender(sock, pending, sampler, t0, sender_cfg)
        })?;
        Ok(ReadySender { flow: id, worker })
    }

    /// Flow `i`'s mark: the caller learns its flow, then its ready sender
    /// connects at once. Nothing here enters a namespace or starts a
    /// thread, so the walk keeps every later mark.
    pub(super) fn release_sender(
        &self,
        scene: &Scene<'_>,
        i: usize,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let Some(ready) = workers.ready_senders.get_mut(i).and_then(Option::take) else {
            return Err(ScenarioError::Worker {
                worker: "sender",
                message: format!("flow {i} has no ready sender"),
            });
        };
        // The caller learns the flow before its connect.
        self.hooks
            .borrow_mut()
            .flow_bound(&self.view(scene.topo, Some(scene.t0), None), i, ready.flow)
            .map_err(hook_step("flow bound"))?;
        workers.senders[i] = ready.worker.release(scene.t0);
        Ok(())
    }
}

/// The threads of the pool (`netlab_os::threads`) a scenario of `plan`
/// runs at once: B's loop, the probes' clients, the capture, each flow's
/// receiver, sender and tcp_info sampler, a qdisc sampler and a rate
/// driver per egress. A run reserves the most of its scenarios before
/// the first, so no scenario starts a thread (method §3.5).
pub fn threads_at_once(plan: &ScenarioSetup) -> usize {
    let flows: usize = plan
        .flows
        .iter()
        .map(|f| 2 + usize::from(f.receiver.is_some()))
        .sum();
    1 + usize::from(plan.probe.is_some())
        + usize::from(plan.iso_probe.is_some())
        + usize::from(plan.capture_flow.is_some())
        + 2 * plan.egresses.len()
        + flows
}

/// How long past the timeline's end a ready worker waits for its release
/// (the setup before t0 included) before it gives up by itself.
const RELEASE_ALLOWANCE: Duration = Duration::from_secs(120);

/// The workers made ready before t0: B's loop's thread, the probes'
/// clients, and every flow's receiver and sender in flow order.
pub(crate) struct ReadyWorkers {
    /// B's loop (the probes' echoes and the clock's flow): its thread,
    /// waiting in B, is handed the loop bound at t0.
    pub b_loop: Ready<BLoopOutput, BLoop>,
    /// The stop-and-wait probe's client, when it runs.
    pub probe: Option<Ready<ProbeLog>>,
    /// The isochronous probe's client, when it runs.
    pub iso_probe: Option<Ready<IsoLog>>,
    /// Each flow's receiver (none for a flow whose caller receives it).
    pub receivers: Vec<Option<Ready<ReceiverOutput>>>,
    /// Each flow's sender.
    pub senders: Vec<Option<ReadySender>>,
}

/// `make(i)` for each `(i, (netns, its name))` of `wanted`, run inside
/// that namespace, each namespace entered once (in the order first seen);
/// the values with their `i`. `what` names the entry in its error.
fn per_netns<T: Send>(
    wanted: &[(usize, (&Netns, &'static str))],
    what: &'static str,
    make: impl Fn(usize) -> Result<T, ScenarioError> + Sync,
) -> Result<Vec<(usize, T)>, ScenarioError> {
    let mut out = Vec::with_capacity(wanted.len());
    let mut done: Vec<&str> = Vec::new();
    for (_, (ns, name)) in wanted {
        if done.contains(&ns.name()) {
            continue;
        }
        done.push(ns.name());
        let mine: Vec<usize> = wanted
            .iter()
            .filter(|(_, (n, _))| n.name() == ns.name())
            .map(|(i, _)| *i)
            .collect();
        let made = ns
            .run(|| {
                mine.iter()
                    .map(|&i| make(i).map(|v| (i, v)))
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(enter(name, what))??;
        out.extend(made);
    }
    Ok(out)
}

/// Values by flow index, `None` where none was made.
fn by_flow<T>(flows: usize, made: Vec<(usize, T)>) -> Vec<Option<T>> {
    let mut v: Vec<Option<T>> = (0..flows).map(|_| None).collect();
    for (i, t) in made {
        v[i] = Some(t);
    }
    v
}

/// A sender host's UDP socket connected to one of B's echoes, made in
/// that host's namespace (`from`: A, or the host the probe names).
fn probe_socket(
    from: &Netns,
    target: SocketAddr,
    what: &'static str,
    step: &'static str,
) -> Result<UdpSocket, ScenarioError> {
    from.run(|| connect_socket(None, target))
        .map_err(enter("A", what))?
        .map_err(|source| ScenarioError::Probe {
            step,
            source: Box::new(source),
        })
}

/// The sender from its release: the tcp_info sampler handed the flow,
/// then the connect and the transfer.
fn run_sender(
    sock: SenderSocket,
    pending: PendingStart,
    sampler: SamplerHandle,
    t0: Instant,
    sender_cfg: SenderConfig,
) -> Result<SenderOutput, String> {
    // The socket is bound, so the sampler learns the flow before the
    // connect; its first dump waits one interval, so nothing of netlab's
    // runs beside the connect and the first writes (method §4.1).
    pending.connected(sock.flow(), t0);
    let tx = match Sender::connect(sock, sender_cfg, t0) {
        Ok(tx) => tx,
        Err(e) => {
            let _ = sampler.stop();
            return Err(format!("sender: {e}"));
        }
    };
    let report = tx.run();
    let log = sampler.stop().map_err(|e| e.to_string());
    Ok((report, log))
}
