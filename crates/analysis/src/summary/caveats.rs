//! The caveats of a run that ran on several machines or lacks plan
//! indices (method §11.9), found from its scenarios' figures.

use netlab_results::merge::index_ranges;
use netlab_results::Results;

use super::ScenarioFigures;

/// What a scenario's machine was, as far as figures may differ by it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MachineFigures {
    /// Kernel release.
    pub kernel: String,
    /// CPU model.
    pub cpu: String,
}

impl ScenarioFigures {
    /// The caveats a run's figures need (method §11.9): the plan indices a partial
    /// merge lacks, and, when its scenarios ran on more than one kernel or CPU
    /// model, which scenarios ran where and which sweep points pool rounds
    /// from several (arms are compared inside a round, which one machine ran,
    /// but the medians over rounds and the comparison between arms pool
    /// rounds). None for a run on one machine.
    pub fn caveats(results: &Results, scenarios: &[ScenarioFigures]) -> Vec<String> {
        use std::collections::BTreeMap;
        let mut out = Vec::new();
        if let Some(m) = results.merged.as_ref().filter(|m| !m.missing.is_empty()) {
            out.push(format!(
            "partial merge (--allow-partial): {} of {} planned scenarios; plan indices {} are missing, \
             so the figures below leave those scenarios out.",
            m.planned as usize - m.missing.len(),
            m.planned,
            index_ranges(&m.missing)
        ));
        }
        let mut machines: BTreeMap<&MachineFigures, Vec<u32>> = BTreeMap::new();
        for f in scenarios {
            if let Some(m) = &f.machine {
                machines.entry(m).or_default().push(f.index);
            }
        }
        if machines.len() > 1 {
            let list = machines
                .iter()
                .map(|(m, idx)| {
                    format!(
                        "kernel {} on {} (scenarios {})",
                        m.kernel,
                        m.cpu,
                        index_ranges(idx)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            let mut points: BTreeMap<(u32, &str), std::collections::BTreeSet<&MachineFigures>> =
                BTreeMap::new();
            for f in scenarios {
                if let Some(m) = &f.machine {
                    points
                        .entry((f.point_index, f.point_label.as_str()))
                        .or_default()
                        .insert(m);
                }
            }
            let mixed: Vec<String> = points
                .iter()
                .filter(|(_, ms)| ms.len() > 1)
                .map(|((i, label), ms)| format!("point {i} ({label}): {} machines", ms.len()))
                .collect();
            out.push(format!(
            "these scenarios ran on different kernels or CPU models: {list}. Each round's arms ran on one machine, \
             but figures that pool rounds — medians over rounds, the comparison between arms — mix them{}.",
            if mixed.is_empty() {
                String::new()
            } else {
                format!(" where rounds at one point came from several: {}", mixed.join("; "))
            }
        ));
        }
        out.extend(super::queue::caveats(scenarios));
        out
    }
}
