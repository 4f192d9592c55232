//! The scenario's workers, each started in its namespace on its own
//! thread: B's first receiver (which set t0) and one receiver per flow,
//! the capture on B, a qdisc sampler per egress in R, the probes in A, and
//! each flow's sender with its tcp_info sampler at the flow's mark.

use std::sync::atomic::Ordering;

use netlab_ecn::Capture;
use netlab_probe::{connect_socket, run_iso_probe, run_probe};
use netlab_qdisc::Sampler;
use netlab_tcpload::sampler::DiagSocket;
use netlab_tcpload::sink::Sink;
use netlab_tcpload::{new_sender_socket, Sender, TcpSampler};

use super::{ends, enter, hook_step, load_step, qdisc_step, Runner, Scene};
use crate::b_loop::BLoop;
use crate::scenario::collect::Workers;
use crate::scenario::error::ScenarioError;
use crate::scenario::worker::spawn_in;

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

    /// Flow `i`'s sender and its tcp_info sampler, in the sending namespace.
    /// The connect happens on the worker, so a slow handshake holds up no
    /// other flow and no mark of the timeline.
    pub(super) fn start_sender(
        &self,
        scene: &Scene<'_>,
        i: usize,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let flow = &self.plan.flows[i];
        let ((ns, name), _) = ends(scene.topo, flow.spec.direction);
        let to = flow.sender.to;
        let sock = ns
            .run(|| new_sender_socket(&flow.sender.cc, to))
            .map_err(enter(name, "a sender"))?
            .map_err(load_step("sender socket"))?;
        let diag = ns
            .run(DiagSocket::open)
            .map_err(enter(name, "sock_diag"))?
            .map_err(load_step("sock_diag socket"))?;
        let (sender_cfg, sampler_cfg) = (flow.sender.clone(), flow.tcp_info);
        let (t0, live) = (scene.t0, scene.live.clone());
        // The caller learns the flow before its connect.
        self.hooks
            .borrow_mut()
            .flow_bound(&self.view(scene.topo, Some(t0), None), i, sock.flow())
            .map_err(hook_step("flow bound"))?;
        workers.senders[i] = Some(spawn_in(ns, "sender", "sender", move |_stop| {
            // The sampler starts before the connect, so the first write
            // follows the connect at once, as in any bulk transfer (method
            // §4.1). Each sample also
            // feeds the live goodput of the progress display.
            let (pending, sampler) =
                TcpSampler::spawn_before_connect(diag, t0, sampler_cfg, move |s| {
                    if let Some(info) = &s.record.info {
                        let f = &live.flows[i];
                        f.bytes_acked.store(info.bytes_acked, Ordering::Relaxed);
                        f.acked_at_us
                            .store((s.end_s * 1e6) as u64, Ordering::Relaxed);
                    }
                })
                .map_err(|e| format!("starting the tcp_info sampler: {e}"))?;
            // The socket is bound, so the sampler learns the flow before
            // the connect; its first dump waits one interval, so nothing
            // runs beside the connect and the first writes.
            pending.connected(sock.flow());
            let tx = match Sender::connect(sock, sender_cfg, t0) {
                Ok(tx) => tx,
                Err(e) => {
                    let _ = sampler.stop();
                    return Err(format!("sender: {e}"));
                }
            };
            let report = tx.run();
            let log = sampler.stop().map_err(|e| e.to_string());
            Ok::<_, String>((report, log))
        })?);
        Ok(())
    }
}
