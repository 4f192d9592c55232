//! The scenario's workers, each started in its namespace on its own
//! thread: B's first receiver (which set t0) and one receiver per flow,
//! the capture on B, a qdisc sampler per egress in R, the probes in A, and
//! each flow's sender with its tcp_info sampler, made ready before t0 and
//! released at the flow's mark.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_ecn::Capture;
use netlab_probe::{connect_socket, run_iso_probe, run_probe};
use netlab_qdisc::Sampler;
use netlab_tcpload::sampler::DiagSocket;
use netlab_tcpload::sink::Sink;
use netlab_tcpload::{
    new_sender_socket, FlowId, PendingStart, SamplerHandle, Sender, SenderConfig, SenderSocket,
    TcpSampler,
};
use netlab_topology::Topology;

use super::{ends, enter, hook_step, load_step, qdisc_step, Runner, Scene};
use crate::b_loop::BLoop;
use crate::progress::Live;
use crate::scenario::collect::{SenderOutput, Workers};
use crate::scenario::error::ScenarioError;
use crate::scenario::worker::{spawn_in, Worker};

/// A sender's worker.
type SenderWorker = Worker<Result<SenderOutput, String>>;

impl Runner<'_, '_> {
    /// B's first receiver (the probes' echoes and the clock's flow), then
    /// each flow's own receiver in its receiving namespace, with its start
    /// after t0.
    pub(super) fn start_receivers(
        &self,
        scene: &Scene<'_>,
        clock_sink: BLoop,
        sinks: Vec<Option<Sink>>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let (topo, t0) = (scene.topo, scene.t0);
        workers.clock_receiver = Some(spawn_in(&topo.b, "receiver", "b-receiver", move |stop| {
            clock_sink.run_logged(Some(stop.flag()))
        })?);
        for (i, sink) in sinks.into_iter().enumerate() {
            let Some(sink) = sink else { continue };
            workers.receiver_offsets[i] = sink.t0().saturating_duration_since(t0);
            let (_, (ns, _)) = ends(topo, self.plan.flows[i].spec.direction);
            workers.receivers[i] = Some(spawn_in(
                ns,
                "flow receiver",
                "flow-receiver",
                move |stop| sink.run_with_stop(stop.flag()),
            )?);
        }
        Ok(())
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

    /// One qdisc sampler per egress, in R, on its grid from t0.
    pub(super) fn start_qdisc_samplers(
        &self,
        scene: &Scene<'_>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        for e in scene.egresses {
            let sampling = netlab_qdisc::SamplerConfig::new(
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

    /// The probe client in A, on its own schedule from t0.
    pub(super) fn start_probe(
        &self,
        scene: &Scene<'_>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let Some(plan) = &self.plan.probe else {
            return Ok(());
        };
        let target = plan.target;
        let sock = scene
            .topo
            .a
            .run(|| connect_socket(None, target))
            .map_err(enter("A", "the probe"))?
            .map_err(|source| ScenarioError::Probe {
                step: "probe socket",
                source: Box::new(source),
            })?;
        let config = plan.config.clone();
        let (t0, live) = (scene.t0, scene.live.clone());
        workers.probe = Some(spawn_in(&scene.topo.a, "probe", "a-probe", move |stop| {
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
        })?);
        Ok(())
    }

    /// The isochronous probe client in A (issue 15), on its fixed grid from
    /// t0 to the end, against B's stamping echo on its own port.
    pub(super) fn start_iso_probe(
        &self,
        scene: &Scene<'_>,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let Some(plan) = &self.plan.iso_probe else {
            return Ok(());
        };
        let target = plan.target;
        let sock = scene
            .topo
            .a
            .run(|| connect_socket(None, target))
            .map_err(enter("A", "the isochronous probe"))?
            .map_err(|source| ScenarioError::Probe {
                step: "isochronous probe socket",
                source: Box::new(source),
            })?;
        let (config, t0) = (plan.config.clone(), scene.t0);
        workers.iso_probe = Some(spawn_in(
            &scene.topo.a,
            "isochronous probe",
            "a-iso-probe",
            move |stop| run_iso_probe(&sock, t0, &config, Some(stop.flag()), |_| {}),
        )?);
        Ok(())
    }

    /// Every flow's sender made ready before t0: its socket created and
    /// bound and its sock_diag socket opened in the sending namespace, its
    /// tcp_info sampler's thread started, and its own thread started
    /// there, both waiting for [`Runner::release_sender`].
    /// Entering a namespace and starting threads cost 0.2 s a flow in the
    /// guest and up to 1 s when the host is busy; done at the flow's mark,
    /// that made twelve flows planned at 1 s start 3.3–11.7 s after t0
    /// (method §3.3).
    pub(super) fn ready_senders(
        &self,
        topo: &Topology,
        live: &Arc<Live>,
    ) -> Result<Vec<Option<ReadySender>>, ScenarioError> {
        let plan = self.plan;
        let bound = plan.timeline.end() + RELEASE_ALLOWANCE;
        let mut ready = Vec::with_capacity(plan.flows.len());
        for (i, flow) in plan.flows.iter().enumerate() {
            let ((ns, name), _) = ends(topo, flow.spec.direction);
            let to = flow.sender.to;
            let sock = ns
                .run(|| new_sender_socket(&flow.sender.cc, to))
                .map_err(enter(name, "a sender"))?
                .map_err(load_step("sender socket"))?;
            let diag = ns
                .run(DiagSocket::open)
                .map_err(enter(name, "sock_diag"))?
                .map_err(load_step("sock_diag socket"))?;
            // The tcp_info sampler's thread too, waiting for its flow.
            let live = live.clone();
            let (pending, sampler) =
                TcpSampler::spawn_waiting(diag, flow.tcp_info, bound, move |s| {
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
            let (release, released) = mpsc::channel::<Instant>();
            let worker = spawn_in(ns, "sender", "sender", move |_stop| {
                let t0 = match released.recv_timeout(bound) {
                    Ok(t0) => t0,
                    Err(e) => {
                        // The sampler, still waiting, ends at its stop.
                        let _ = sampler.stop();
                        return Err(match e {
                            RecvTimeoutError::Disconnected => NOT_RELEASED.to_string(),
                            RecvTimeoutError::Timeout => {
                                format!("not released within {} s", bound.as_secs())
                            }
                        });
                    }
                };
                run_sender(sock, pending, sampler, t0, sender_cfg)
            })?;
            ready.push(Some(ReadySender {
                flow: id,
                release: Some(release),
                worker: Some(worker),
            }));
        }
        Ok(ready)
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
        workers.senders[i] = ready.release(scene.t0);
        Ok(())
    }
}

/// How long past the timeline's end a ready sender waits for its release
/// (the setup before t0 included) before it gives up by itself.
const RELEASE_ALLOWANCE: Duration = Duration::from_secs(120);

/// What a ready sender returns when the scenario ended before its mark.
const NOT_RELEASED: &str = "the scenario ended before this flow's start";

/// A flow's sender made ready before t0, waiting for its mark. Dropped
/// unreleased (the scenario ended or failed first), it tells its thread
/// and joins it: the thread then ends at once, having connected nothing.
pub(crate) struct ReadySender {
    flow: FlowId,
    release: Option<mpsc::Sender<Instant>>,
    worker: Option<SenderWorker>,
}

impl ReadySender {
    /// Releases it with the scenario's t0; the worker to join.
    fn release(mut self, t0: Instant) -> Option<SenderWorker> {
        if let Some(tx) = self.release.take() {
            // A thread gone already (it panicked) shows when it is joined.
            let _ = tx.send(t0);
        }
        self.worker.take()
    }
}

impl Drop for ReadySender {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(w) = self.worker.take() {
            // It can only answer NOT_RELEASED (or its panic): nothing ran.
            let _ = w.join();
        }
    }
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
