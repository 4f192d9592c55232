//! From the file as written to the resolved [`Experiment`], and back.
//! Every refusal names the key (`flows[2].cc`) and says what is wrong.

use std::collections::BTreeMap;
use std::time::Duration;

use netlab_qdisc_model::{Size, Tbf};

use crate::check::{check_cc, err, offloads, rate};
use crate::file::{
    ArmWordSweepFile, CaptureFile, ExperimentFile, FlowFile, PathFile, ProbeFile, SamplingFile,
    ShaperFile, SweepFile, TimelineFile,
};
use crate::link::RateSchedule;
use crate::model::check_path_mtu;
use crate::model::{
    default_tbf, ArmSpec, AxisValue, CaptureSpec, Direction, Experiment, FlowSpec, KernelChoice,
    Offloads, PathSpec, PcapMode, ProbeKind, ProbeSpec, ReceiveBuffer, Timeline, AUTO_PORT_BASE,
    DEFAULT_PCAP_MAX_BYTES, DEFAULT_PCAP_SNAP_LEN, MAX_PCAP_SNAP_LEN, MIN_PCAP_MAX_BYTES,
    MIN_PCAP_SNAP_LEN,
};
use crate::units::{format_duration, parse_duration};
use crate::ExperimentError;
use netlab_path_settings::DEFAULT_TCP_PORT;

/// Most rounds an experiment may ask for.
pub const MAX_ROUNDS: u32 = 1000;
/// Most scenarios (points × rounds × arms) one experiment may plan.
pub const MAX_SCENARIOS: usize = 10_000;

fn duration(
    key: &str,
    text: &Option<String>,
    default: Duration,
    zero_ok: bool,
) -> Result<Duration, ExperimentError> {
    match text {
        None => Ok(default),
        Some(t) => parse_duration(t, zero_ok).map_err(|e| err(key, e)),
    }
}

fn size(key: &str, text: &str) -> Result<Size, ExperimentError> {
    Size::parse(text).map_err(|e| err(key, e.to_string()))
}

impl Experiment {
    /// Resolves a parsed file: defaults filled in, every value checked. A
    /// file without `[[probes]]` runs the stop-and-wait probe alone, as it
    /// always has, so its content hash (and its shard folders) stay what
    /// they were; the presets and `compare` name the isochronous probe
    /// beside it (method §10).
    pub fn from_file(f: &ExperimentFile) -> Result<Experiment, ExperimentError> {
        Experiment::from_file_in(f, None)
    }

    /// [`Experiment::from_file`], a relative `trace` path read from `base`
    /// (the experiment file's folder; `None`: the current folder). A trace
    /// file is the one file resolving reads, and only when the file form
    /// does not already hold its rates (netlab's printed form does).
    pub fn from_file_in(
        f: &ExperimentFile,
        base: Option<&std::path::Path>,
    ) -> Result<Experiment, ExperimentError> {
        let d = Experiment::default();
        let rounds = f.rounds.unwrap_or(d.rounds);
        if rounds == 0 || rounds > MAX_ROUNDS {
            return Err(err("rounds", format!("must be between 1 and {MAX_ROUNDS}")));
        }
        let kernel = match &f.kernel {
            None => d.kernel,
            Some(k) => KernelChoice::parse(k)
                .ok_or_else(|| err("kernel", format!("{k:?}: expected {}", KernelChoice::WORDS)))?,
        };
        let arms = match &f.arms {
            None => d.arms.clone(),
            Some(list) => resolve_arms(list)?,
        };
        let timeline = resolve_timeline(f.timeline.as_ref().unwrap_or(&TimelineFile::default()))?;
        let path = resolve_path(f.path.as_ref().unwrap_or(&PathFile::default()), base)?;
        crate::link::check_against(
            [&path.up_schedule, &path.down_schedule],
            timeline.end(),
            f.sweep.as_ref(),
        )?;
        let hosts = match &f.hosts {
            None => Vec::new(),
            Some(list) => crate::hosts::resolve_hosts(list)?,
        };
        let flows = match &f.flows {
            None => d.flows.clone(),
            Some(list) => resolve_flows(list, &timeline, &hosts)?,
        };
        let probes = match &f.probes {
            None => vec![ProbeSpec::stop_and_wait()],
            Some(list) => resolve_probes(list, &timeline, &hosts)?,
        };
        check_ports(&flows, &probes)?;
        let sampling = f.sampling.clone().unwrap_or_default();
        let sample_interval = duration(
            "sampling.interval",
            &sampling.interval,
            d.sample_interval,
            false,
        )?;
        if sample_interval < Duration::from_millis(10) {
            return Err(err("sampling.interval", "must be at least 10ms"));
        }
        let capture = resolve_capture(
            f.capture.as_ref().unwrap_or(&CaptureFile::default()),
            &timeline,
        )?;
        let sweep = crate::sweep::resolve_sweep(
            f.sweep.as_ref().unwrap_or(&SweepFile::default()),
            &arms,
            &flows,
            &path,
            &probes,
            &timeline,
        )?;
        crate::probes::check_sizes(&probes, &sweep, path.mtu)?;
        check_down_bottleneck(&hosts, &path, &sweep)?;
        let models = crate::models::resolve_models(f.report.as_ref())?;
        let exp = Experiment {
            name: f.name.clone().unwrap_or(d.name),
            description: f.description.clone().unwrap_or(d.description),
            rounds,
            kernel,
            seed: f.seed.unwrap_or(d.seed),
            arms,
            timeline,
            path,
            hosts,
            flows,
            probes,
            sample_interval,
            capture,
            sweep,
            models,
        };
        exp.check_name_and_size()?;
        Ok(exp)
    }

    /// The name is a folder-safe word and the plan not too large.
    fn check_name_and_size(&self) -> Result<(), ExperimentError> {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(err("name", "use letters, digits, '-', '_' or '.'"));
        }
        let n = crate::plan::point_count(&self.sweep) * self.rounds as usize * self.arms.len();
        if n > MAX_SCENARIOS {
            return Err(err(
                "sweep",
                format!("{n} scenarios planned; at most {MAX_SCENARIOS}"),
            ));
        }
        Ok(())
    }

    /// The file form with every default spelled out (what `--print-experiment`
    /// prints); [`Experiment::from_file`] reads it back to the same experiment.
    // Long: every field of the file form spelled out, one after another, so
    // that reading it back gives the same experiment.
    pub fn to_file(&self) -> ExperimentFile {
        let shaper = |t: &Option<Tbf>, schedule: &Option<RateSchedule>| match t {
            None => ShaperFile {
                shaped: Some(false),
                ..ShaperFile::default()
            },
            Some(t) => {
                let mut f = ShaperFile {
                    shaped: Some(true),
                    rate: Some(t.rate.to_string()),
                    burst: Some(t.burst.to_string()),
                    limit: Some(t.limit.to_string()),
                    ..ShaperFile::default()
                };
                if let Some(s) = schedule {
                    crate::link::print_schedule(s, &mut f);
                }
                f
            }
        };
        let mut sweep = SweepFile::default();
        for axis in &self.sweep.axes {
            let strings = |f: &dyn Fn(&AxisValue) -> Option<String>| {
                Some(axis.iter().filter_map(f).collect::<Vec<_>>())
            };
            match axis.first() {
                Some(AxisValue::Rate(_)) => {
                    sweep.rate = strings(&|v| match v {
                        AxisValue::Rate(r) => Some(r.to_string()),
                        _ => None,
                    })
                }
                Some(AxisValue::DownRate(_)) => {
                    sweep.down_rate = strings(&|v| match v {
                        AxisValue::DownRate(r) => Some(r.to_string()),
                        _ => None,
                    })
                }
                Some(AxisValue::BaseRtt(_)) => {
                    sweep.base_rtt = strings(&|v| match v {
                        AxisValue::BaseRtt(d) => Some(format_duration(*d)),
                        _ => None,
                    })
                }
                Some(AxisValue::Offloads(_)) => {
                    sweep.offloads = strings(&|v| match v {
                        AxisValue::Offloads(o) => Some(o.file_word().to_string()),
                        _ => None,
                    })
                }
                Some(AxisValue::Mtu(_)) => {
                    sweep.mtu = Some(
                        axis.iter()
                            .filter_map(|v| match v {
                                AxisValue::Mtu(m) => Some(*m),
                                _ => None,
                            })
                            .collect(),
                    )
                }
                Some(AxisValue::Flows(_)) => {
                    sweep.flows = Some(
                        axis.iter()
                            .filter_map(|v| match v {
                                AxisValue::Flows(n) => Some(*n),
                                _ => None,
                            })
                            .collect(),
                    )
                }
                Some(AxisValue::Cc(_)) => {
                    sweep.cc = strings(&|v| match v {
                        AxisValue::Cc(c) => Some(c.clone()),
                        _ => None,
                    })
                }
                Some(AxisValue::ProbeInterval { kind, .. }) => {
                    let list = strings(&|v| match v {
                        AxisValue::ProbeInterval { interval, .. } => {
                            Some(format_duration(*interval))
                        }
                        _ => None,
                    });
                    match kind {
                        ProbeKind::StopAndWait => sweep.stop_and_wait_interval = list,
                        ProbeKind::Isochronous => sweep.isochronous_interval = list,
                    }
                }
                Some(AxisValue::ProbeSize { kind, .. }) => {
                    let list = Some(
                        axis.iter()
                            .filter_map(|v| match v {
                                AxisValue::ProbeSize { size, .. } => Some(*size),
                                _ => None,
                            })
                            .collect(),
                    );
                    match kind {
                        ProbeKind::StopAndWait => sweep.stop_and_wait_size = list,
                        ProbeKind::Isochronous => sweep.isochronous_size = list,
                    }
                }
                Some(AxisValue::ArmWord { kind, word, .. }) => sweep
                    .arm
                    .get_or_insert_with(Vec::new)
                    .push(ArmWordSweepFile {
                        kind: kind.clone(),
                        word: word.clone(),
                        values: axis
                            .iter()
                            .filter_map(|v| match v {
                                AxisValue::ArmWord { value, .. } => Some(value.clone()),
                                _ => None,
                            })
                            .collect(),
                    }),
                Some(AxisValue::BufferBdp(_)) => {
                    sweep.buffer_bdp = Some(
                        axis.iter()
                            .filter_map(|v| match v {
                                AxisValue::BufferBdp(x) => Some(*x),
                                _ => None,
                            })
                            .collect(),
                    )
                }
                Some(AxisValue::FlowsOfCc { cc, .. }) => {
                    sweep.flows_by_cc.get_or_insert_with(BTreeMap::new).insert(
                        cc.clone(),
                        axis.iter()
                            .filter_map(|v| match v {
                                AxisValue::FlowsOfCc { n, .. } => Some(*n),
                                _ => None,
                            })
                            .collect(),
                    );
                }
                None => {}
            }
        }
        let has_sweep = sweep != SweepFile::default();
        ExperimentFile {
            name: Some(self.name.clone()),
            description: Some(self.description.clone()),
            rounds: Some(self.rounds),
            kernel: Some(self.kernel.as_str().to_string()),
            seed: Some(self.seed),
            arms: Some(self.arms.iter().map(|a| a.words.clone()).collect()),
            timeline: Some(TimelineFile {
                baseline: Some(format_duration(self.timeline.baseline)),
                warmup: Some(format_duration(self.timeline.warmup)),
                measure: Some(format_duration(self.timeline.measure)),
            }),
            path: Some(PathFile {
                base_rtt: Some(format_duration(self.path.base_rtt)),
                jitter: Some(format_duration(self.path.jitter)),
                loss_percent: Some(self.path.loss_percent),
                receive_buffer: Some(self.path.receive_buffer.file_word().to_string()),
                // Only when not the default, so that the canonical text,
                // and the content hash, of an experiment that does not
                // use them is what it was before they existed.
                offloads: (self.path.offloads != Offloads::Kernel)
                    .then(|| self.path.offloads.file_word().to_string()),
                mtu: (self.path.mtu != netlab_path_settings::DEFAULT_MTU).then_some(self.path.mtu),
                up: Some(shaper(&self.path.up, &self.path.up_schedule)),
                down: Some(shaper(&self.path.down, &self.path.down_schedule)),
            }),
            hosts: crate::hosts::hosts_file(&self.hosts),
            flows: Some(
                self.flows
                    .iter()
                    .map(|fl| FlowFile {
                        direction: Some(fl.direction.as_str().to_string()),
                        cc: Some(fl.cc.clone()),
                        ecn: Some(fl.ecn),
                        start: Some(format_duration(fl.start)),
                        stop: fl.stop.map(format_duration),
                        port: Some(fl.port),
                        block_size: Some(fl.block_size),
                        host: crate::hosts::host_name(&self.hosts, fl.host),
                    })
                    .collect(),
            ),
            probes: Some(
                self.probes
                    .iter()
                    .map(|p| ProbeFile {
                        kind: Some(p.kind.as_str().to_string()),
                        port: Some(p.port),
                        interval: Some(format_duration(p.interval)),
                        timeout: Some(format_duration(p.timeout)),
                        max_requests: p.max_requests,
                        // Only when not the default, so that the canonical
                        // text (and the hash) of a file without it is what
                        // it was before probe sizes existed.
                        size: (p.size != ProbeSpec::min_size(p.kind)).then_some(p.size),
                        host: crate::hosts::host_name(&self.hosts, p.host),
                    })
                    .collect(),
            ),
            sampling: Some(SamplingFile {
                interval: Some(format_duration(self.sample_interval)),
            }),
            capture: Some(CaptureFile {
                frames: Some(self.capture.frames),
                deadline: Some(format_duration(self.capture.deadline)),
                pcap: Some(self.capture.pcap.as_str().to_string()),
                snap_len: Some(self.capture.snap_len),
                pcap_max_bytes: Some(self.capture.pcap_max_bytes),
            }),
            sweep: has_sweep.then_some(sweep),
            report: crate::models::report_file(&self.models),
        }
    }
}

/// `arms`: at least one, each a qdisc's tc words netlab knows.
fn resolve_arms(list: &[String]) -> Result<Vec<ArmSpec>, ExperimentError> {
    if list.is_empty() {
        return Err(err("arms", "at least one arm is needed"));
    }
    list.iter()
        .enumerate()
        .map(|(i, w)| ArmSpec::parse(w).map_err(|e| err(format!("arms[{i}]"), e.to_string())))
        .collect()
}

fn resolve_timeline(t: &TimelineFile) -> Result<Timeline, ExperimentError> {
    let d = Timeline::default();
    Ok(Timeline {
        baseline: duration("timeline.baseline", &t.baseline, d.baseline, false)?,
        warmup: duration("timeline.warmup", &t.warmup, d.warmup, false)?,
        measure: duration("timeline.measure", &t.measure, d.measure, false)?,
    })
}

fn resolve_shaper(
    key: &str,
    s: Option<&ShaperFile>,
    default: Option<Tbf>,
    base: Option<&std::path::Path>,
) -> Result<(Option<Tbf>, Option<RateSchedule>), ExperimentError> {
    let Some(s) = s else {
        return Ok((default, None));
    };
    if s.shaped == Some(false) {
        if s.rate.is_some() || s.burst.is_some() || s.limit.is_some() {
            return Err(err(key, "shaped = false takes no rate, burst or limit"));
        }
        if s.rate_schedule.is_some() || s.trace.is_some() {
            return Err(err(key, "shaped = false takes no rate_schedule or trace"));
        }
        return Ok((None, None));
    }
    let schedule = crate::link::resolve_schedule(key, s, base)?;
    let base_tbf = default.unwrap_or_else(default_tbf);
    let given_rate = match &s.rate {
        Some(r) => Some(rate(&format!("{key}.rate"), r)?),
        None => None,
    };
    let tbf_rate = match (&schedule, given_rate) {
        (None, r) => r.unwrap_or(base_tbf.rate),
        // With a schedule the TBF starts at the schedule's rate at t0.
        (Some(sch), r) => {
            let at_t0 = sch.initial().tbf_rate();
            if r.is_some_and(|r| r != at_t0) {
                return Err(err(
                    format!("{key}.rate"),
                    format!(
                        "the rate_schedule starts at {}; leave rate out or give that",
                        sch.initial()
                            .rate
                            .map_or_else(|| "an outage (0)".to_string(), |r| r.to_string())
                    ),
                ));
            }
            at_t0
        }
    };
    let tbf = Tbf {
        rate: tbf_rate,
        burst: match &s.burst {
            Some(b) => size(&format!("{key}.burst"), b)?,
            None => base_tbf.burst,
        },
        limit: match &s.limit {
            Some(l) => size(&format!("{key}.limit"), l)?,
            None => base_tbf.limit,
        },
    };
    tbf.validate().map_err(|e| err(key, e.to_string()))?;
    Ok((Some(tbf), schedule))
}

fn resolve_path(p: &PathFile, base: Option<&std::path::Path>) -> Result<PathSpec, ExperimentError> {
    let d = PathSpec::default();
    let base_rtt = duration("path.base_rtt", &p.base_rtt, d.base_rtt, true)?;
    if base_rtt > Duration::from_secs(10) {
        return Err(err("path.base_rtt", "at most 10s"));
    }
    let jitter = duration("path.jitter", &p.jitter, d.jitter, true)?;
    if jitter > base_rtt {
        return Err(err("path.jitter", "must not exceed path.base_rtt"));
    }
    let loss_percent = p.loss_percent.unwrap_or(0.0);
    if !(0.0..=100.0).contains(&loss_percent) {
        return Err(err("path.loss_percent", "must be between 0 and 100"));
    }
    let receive_buffer = match p.receive_buffer.as_deref() {
        None => ReceiveBuffer::Kernel,
        Some(word) => ReceiveBuffer::from_file_word(word).ok_or_else(|| {
            err(
                "path.receive_buffer",
                format!("{word:?}: \"max\" or \"kernel\""),
            )
        })?,
    };
    let offloads = match p.offloads.as_deref() {
        None => d.offloads,
        Some(word) => offloads("path.offloads", word)?,
    };
    let mtu = p.mtu.unwrap_or(d.mtu);
    let (up, up_schedule) = resolve_shaper("path.up", p.up.as_ref(), d.up, base)?;
    let (down, down_schedule) = resolve_shaper("path.down", p.down.as_ref(), d.down, base)?;
    let path = PathSpec {
        base_rtt,
        jitter,
        loss_percent,
        receive_buffer,
        offloads,
        mtu,
        up,
        down,
        up_schedule,
        down_schedule,
    };
    check_path_mtu("path.mtu", mtu, &path)?;
    Ok(path)
}

fn resolve_flows(
    list: &[FlowFile],
    timeline: &Timeline,
    hosts: &[crate::hosts::HostSpec],
) -> Result<Vec<FlowSpec>, ExperimentError> {
    if list.is_empty() {
        return Err(err("flows", "at least one flow is needed"));
    }
    let load = timeline.load_len();
    let mut flows = Vec::with_capacity(list.len());
    for (i, f) in list.iter().enumerate() {
        let key = |k: &str| format!("flows[{i}].{k}");
        let d = FlowSpec::default();
        let direction = match f.direction.as_deref() {
            None | Some("up") => Direction::Up,
            Some("down") => Direction::Down,
            Some(other) => {
                return Err(err(
                    key("direction"),
                    format!("{other:?}: expected up or down"),
                ))
            }
        };
        let cc = f.cc.clone().unwrap_or(d.cc);
        check_cc(&key("cc"), &cc)?;
        let start = duration(&key("start"), &f.start, Duration::ZERO, true)?;
        if start >= load {
            return Err(err(
                key("start"),
                format!(
                    "must be inside the load phase ({} long)",
                    format_duration(load)
                ),
            ));
        }
        let stop = match &f.stop {
            None => None,
            Some(t) => {
                let s = parse_duration(t, false).map_err(|e| err(key("stop"), e))?;
                if s <= start || s > load {
                    return Err(err(
                        key("stop"),
                        format!("must be after start and at most {}", format_duration(load)),
                    ));
                }
                Some(s)
            }
        };
        let block_size = f.block_size.unwrap_or(d.block_size);
        if block_size == 0 || block_size > 16 << 20 {
            return Err(err(key("block_size"), "must be between 1 and 16777216"));
        }
        if f.port == Some(0) {
            return Err(err(key("port"), "must be between 1 and 65535"));
        }
        flows.push(FlowSpec {
            direction,
            cc,
            ecn: f.ecn.unwrap_or(d.ecn),
            start,
            stop,
            port: f.port.unwrap_or(0),
            block_size,
            host: crate::hosts::host_index(&key("host"), f.host.as_deref(), hosts)?,
        });
    }
    // tcp_ecn is a sysctl of the sender's namespace, not of a socket: the
    // flows one end sends must agree on it.
    for dir in [Direction::Up, Direction::Down] {
        let mut same = flows.iter().enumerate().filter(|(_, f)| f.direction == dir);
        if let Some((_, first)) = same.next() {
            if let Some((i, _)) = same.find(|(_, f)| f.ecn != first.ecn) {
                return Err(err(
                    format!("flows[{i}].ecn"),
                    format!(
                        "the {} flows share their sender's tcp_ecn sysctl: all must have the same ecn",
                        dir.as_str()
                    ),
                ));
            }
        }
    }
    assign_ports(&mut flows);
    Ok(flows)
}

/// Flows without a port: the first gets the method's port if it is free,
/// the others the next free ones from AUTO_PORT_BASE.
fn assign_ports(flows: &mut [FlowSpec]) {
    let mut used: Vec<u16> = flows.iter().map(|f| f.port).filter(|p| *p != 0).collect();
    let mut next = AUTO_PORT_BASE;
    for (i, f) in flows.iter_mut().enumerate() {
        if f.port != 0 {
            continue;
        }
        if i == 0 && !used.contains(&DEFAULT_TCP_PORT) {
            f.port = DEFAULT_TCP_PORT;
        } else {
            while used.contains(&next) {
                next += 1;
            }
            f.port = next;
        }
        used.push(f.port);
    }
}

fn resolve_probes(
    list: &[ProbeFile],
    timeline: &Timeline,
    hosts: &[crate::hosts::HostSpec],
) -> Result<Vec<ProbeSpec>, ExperimentError> {
    let mut probes = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let key = |k: &str| format!("probes[{i}].{k}");
        let d = match p.kind.as_deref() {
            None | Some("stop-and-wait") => ProbeSpec::stop_and_wait(),
            Some("isochronous") => ProbeSpec::isochronous(),
            Some(other) => {
                return Err(err(
                    key("kind"),
                    format!("{other:?}: expected stop-and-wait or isochronous"),
                ))
            }
        };
        if probes.iter().any(|q: &ProbeSpec| q.kind == d.kind) {
            return Err(err(
                key("kind"),
                format!("a second {} probe", d.kind.as_str()),
            ));
        }
        let interval = duration(&key("interval"), &p.interval, d.interval, false)?;
        let timeout = duration(&key("timeout"), &p.timeout, d.timeout, false)?;
        crate::probes::check_interval(
            &key("interval"),
            &ProbeSpec { timeout, ..d },
            interval,
            timeline,
        )?;
        let max_requests = match (d.kind, p.max_requests) {
            (ProbeKind::Isochronous, Some(_)) => {
                return Err(err(
                    key("max_requests"),
                    "only the stop-and-wait probe has a request cap",
                ))
            }
            (_, Some(0)) => return Err(err(key("max_requests"), "must be positive")),
            (_, Some(n)) => Some(n),
            (_, None) => d.max_requests,
        };
        if p.port == Some(0) {
            return Err(err(key("port"), "must be between 1 and 65535"));
        }
        probes.push(ProbeSpec {
            kind: d.kind,
            port: p.port.unwrap_or(d.port),
            interval,
            timeout,
            max_requests,
            // Checked with the MTU once the sweep is known.
            size: p.size.unwrap_or(d.size),
            host: crate::hosts::host_index(&key("host"), p.host.as_deref(), hosts)?,
        });
    }
    Ok(probes)
}

fn check_ports(flows: &[FlowSpec], probes: &[ProbeSpec]) -> Result<(), ExperimentError> {
    let mut seen: BTreeMap<u16, String> = BTreeMap::new();
    let keys = flows
        .iter()
        .enumerate()
        .map(|(i, f)| (format!("flows[{i}].port"), f.port))
        .chain(
            probes
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("probes[{i}].port"), p.port)),
        );
    for (key, port) in keys {
        if let Some(first) = seen.insert(port, key.clone()) {
            return Err(err(key, format!("port {port} is already used by {first}")));
        }
    }
    Ok(())
}

fn resolve_capture(c: &CaptureFile, timeline: &Timeline) -> Result<CaptureSpec, ExperimentError> {
    let frames = c.frames.unwrap_or(50_000);
    if frames == 0 || frames > 10_000_000 {
        return Err(err("capture.frames", "must be between 1 and 10000000"));
    }
    let deadline = duration(
        "capture.deadline",
        &c.deadline,
        Experiment::default_capture_deadline(timeline),
        false,
    )?;
    if deadline < timeline.end() {
        return Err(err(
            "capture.deadline",
            format!(
                "shorter than the scenario ({}): the capture would stop before the load",
                format_duration(timeline.end())
            ),
        ));
    }
    let pcap = match c.pcap.as_deref() {
        None | Some("off") => PcapMode::Off,
        Some("headers") => PcapMode::Headers,
        Some(other) => {
            return Err(err(
                "capture.pcap",
                format!("unknown value {other:?} (expected \"off\" or \"headers\")"),
            ))
        }
    };
    let snap_len = c.snap_len.unwrap_or(DEFAULT_PCAP_SNAP_LEN);
    if !(MIN_PCAP_SNAP_LEN..=MAX_PCAP_SNAP_LEN).contains(&snap_len) {
        return Err(err(
            "capture.snap_len",
            format!(
                "{snap_len} is outside {MIN_PCAP_SNAP_LEN}..={MAX_PCAP_SNAP_LEN}: Ethernet + IPv4 + \
                 TCP with options need {MIN_PCAP_SNAP_LEN} bytes"
            ),
        ));
    }
    let pcap_max_bytes = c.pcap_max_bytes.unwrap_or(DEFAULT_PCAP_MAX_BYTES);
    if pcap_max_bytes < MIN_PCAP_MAX_BYTES {
        return Err(err(
            "capture.pcap_max_bytes",
            format!(
                "{pcap_max_bytes} is below {MIN_PCAP_MAX_BYTES} bytes (the file's own blocks and one frame)"
            ),
        ));
    }
    Ok(CaptureSpec {
        frames,
        deadline,
        pcap,
        snap_len,
        pcap_max_bytes,
    })
}

/// Refuses a download bottleneck with more than one host: it is TBF on
/// R's egress toward A, host 1's link only, and the other hosts' links
/// would pass it by (docs/method.md §1.7).
fn check_down_bottleneck(
    hosts: &[crate::hosts::HostSpec],
    path: &PathSpec,
    sweep: &crate::model::Sweep,
) -> Result<(), ExperimentError> {
    let swept = sweep
        .axes
        .iter()
        .any(|a| matches!(a.first(), Some(AxisValue::DownRate(_))));
    if hosts.len() > 1 && (path.down.is_some() || swept) {
        let key = if swept {
            "sweep.down_rate"
        } else {
            "path.down"
        };
        return Err(err(
            key,
            "a download bottleneck takes one sender host: it shapes R's egress toward \
             host 1 only, and the other hosts' downloads would pass it by",
        ));
    }
    Ok(())
}
