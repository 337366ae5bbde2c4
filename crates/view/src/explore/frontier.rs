//! The frontier table and the all-configurations rows: attributes, latency text, ties,
//! the rows' HTML with their test hooks, finding a config by key.

use super::*;

/// The test hooks of a configuration (`pareto-row`, `config-detail`): knobs, latency,
/// PEs and efficiency as plain decimals.
pub fn config_attributes(c: &ConfigScore) -> [(&'static str, String); 12] {
    [
        ("data-cp", c.cp.to_string()),
        ("data-tp", c.tp.to_string()),
        ("data-pp", c.pp.to_string()),
        ("data-dp", c.dp.to_string()),
        ("data-kv", c.kv_shard_mode.to_string()),
        ("data-ffn", c.ffn_shard_scope.to_string()),
        ("data-tpp", c.tp_placement.to_string()),
        ("data-cpp", c.cp_placement.to_string()),
        ("data-ring", c.cp_ring_variant.to_string()),
        ("data-latency-ns", plain_decimal(c.total_latency_ns)),
        ("data-pes", c.pes_used.to_string()),
        ("data-efficiency", plain_decimal(c.efficiency_score)),
    ]
}

/// `3.420 ms` / `812.0 µs`: a latency in the unit that fits.
pub fn latency_text(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

/// The summary's objective figure: how many configurations meet the SLAs, with its
/// label; without an SLA, a dash and "no objective set" (not a count of everything).
pub fn objective_stat(total_within_sla: Option<usize>) -> (String, &'static str) {
    match total_within_sla {
        Some(n) => (n.to_string(), "within the objectives"),
        None => ("–".to_string(), "no objective set"),
    }
}

/// Where a frontier row stands among the rows that tie with it on every objective
/// (latency, PEs and efficiency exactly equal): they differ only in knobs that change
/// none of the three (KV layout, FFN scope, placements), so the table groups them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tie {
    /// No other row has these objectives.
    Alone,
    /// The group's first row in display order, with every member (indices into the
    /// rows, its own first): the group's size and the list shown on hover.
    First { members: Vec<usize> },
    /// A later member of the group whose first row is at `first` (an index into the
    /// rows).
    Member { first: usize },
}

/// The tie of each of `rows` (in display order; members need not be adjacent).
pub fn ties(rows: &[ConfigScore]) -> Vec<Tie> {
    let objectives = |c: &ConfigScore| {
        (
            c.total_latency_ns.to_bits(),
            c.pes_used,
            c.efficiency_score.to_bits(),
        )
    };
    let mut first_of: HashMap<(u64, u64, u64), usize> = HashMap::new();
    let mut out = vec![Tie::Alone; rows.len()];
    for (i, c) in rows.iter().enumerate() {
        match first_of.get(&objectives(c)) {
            Some(&first) => {
                out[i] = Tie::Member { first };
                match &mut out[first] {
                    Tie::First { members } => members.push(i),
                    alone => {
                        *alone = Tie::First {
                            members: vec![first, i],
                        }
                    }
                }
            }
            None => {
                first_of.insert(objectives(c), i);
            }
        }
    }
    out
}

/// The short keys of the frontier configurations that tie with the one keyed `key` on
/// every objective (latency, PEs, efficiency), itself left out, in frontier order.
pub fn tied_keys(pareto: &[ConfigScore], key: &str) -> Vec<String> {
    let keys: Vec<String> = pareto
        .iter()
        .map(|c| short_key(&c.as_topology(0, Mode::Decode)))
        .collect();
    let Some(at) = keys.iter().position(|k| k == key) else {
        return Vec::new();
    };
    let group: Vec<usize> = match &ties(pareto)[at] {
        Tie::Alone => return Vec::new(),
        Tie::First { members } => members.clone(),
        Tie::Member { first } => match &ties(pareto)[*first] {
            Tie::First { members } => members.clone(),
            _ => return Vec::new(),
        },
    };
    group
        .into_iter()
        .filter(|&i| i != at)
        .map(|i| keys[i].clone())
        .collect()
}

/// The hover text of a group's badge: what ties and who.
pub fn tie_title(keys: &[&str]) -> String {
    format!(
        "{} configurations tie on latency, PEs and efficiency (they differ only in KV layout, FFN scope or placement):\n{}",
        keys.len(),
        keys.join("\n")
    )
}

/// Rows per `<tbody>` chunk of the frontier table (main.css sizes a chunk it has not
/// laid out yet by this count).
pub const PARETO_CHUNK_ROWS: usize = 16;

/// The frontier table's rows (`pareto-row` with [`config_attributes`] and `data-key`), in
/// `<tbody class="chunk">`s of [`PARETO_CHUNK_ROWS`]: chunks out of view skip layout, so a
/// new frontier costs the layout of the rows in view (all ~55 rows at once were a 50 ms
/// layout on a cold page).
///
/// Rows that tie on every objective are grouped ([`ties`]): the group's first row carries
/// a `×N` badge after its knobs (`data-ties`, the list of members as its title); the others are marked
/// `tied` (`data-tied-to`: the first row's key) and show a ditto mark where the
/// objectives would repeat. Every row stays in the table.
pub fn pareto_rows_html(rows: &[ConfigScore], selected: Option<&str>) -> String {
    let mut html = String::with_capacity(rows.len() * 600);
    let ties = ties(rows);
    let keys: Vec<String> = rows
        .iter()
        .map(|c| short_key(&c.as_topology(0, Mode::Decode)))
        .collect();
    for (n, c) in rows.iter().enumerate() {
        if n % PARETO_CHUNK_ROWS == 0 {
            if n > 0 {
                html.push_str("</tbody>");
            }
            html.push_str(r#"<tbody class="chunk" role="rowgroup">"#);
        }
        let key = &keys[n];
        let is_selected = selected == Some(key.as_str());
        html.push_str("<tr data-testid=\"pareto-row\" role=\"row\" tabindex=\"-1\"");
        for (name, value) in config_attributes(c) {
            html.push_str(&format!(" {name}=\"{}\"", escape(&value)));
        }
        let mut classes = Vec::new();
        if is_selected {
            classes.push("selected");
        }
        match &ties[n] {
            Tie::Member { first } => {
                classes.push("tied");
                html.push_str(&format!(" data-tied-to=\"{}\"", escape(&keys[*first])));
            }
            Tie::First { members } => {
                classes.push("tied-lead");
                html.push_str(&format!(" data-ties=\"{}\"", members.len()));
            }
            Tie::Alone => {}
        }
        html.push_str(&format!(
            " data-key=\"{}\" aria-selected=\"{is_selected}\"",
            escape(key)
        ));
        if !classes.is_empty() {
            html.push_str(&format!(" class=\"{}\"", classes.join(" ")));
        }
        html.push('>');
        let cells = [
            c.cp.to_string(),
            c.tp.to_string(),
            c.pp.to_string(),
            c.dp.to_string(),
            c.kv_shard_mode.to_string(),
            c.ffn_shard_scope.to_string(),
            format!("{} / {}", c.tp_placement, c.cp_placement),
            c.cp_ring_variant.to_string(),
        ];
        for (i, cell) in cells.iter().enumerate() {
            match &ties[n] {
                // After the last knob (the ring, whose column is the one that grows).
                Tie::First { members } if i + 1 == cells.len() => {
                    let listed: Vec<&str> = members.iter().map(|&m| keys[m].as_str()).collect();
                    html.push_str(&format!(
                        "<td>{} <span class=\"ties-badge\" title=\"{}\">×{}</span></td>",
                        escape(cell),
                        escape(&tie_title(&listed)),
                        members.len()
                    ))
                }
                _ => html.push_str(&format!("<td>{}</td>", escape(cell))),
            }
        }
        let objectives = [
            latency_text(c.total_latency_ns),
            c.pes_used.to_string(),
            format!("{:.3}", c.efficiency_score),
        ];
        for cell in &objectives {
            if matches!(ties[n], Tie::Member { .. }) {
                html.push_str(
                    "<td class=\"num ditto\" title=\"the same as the group's first row\">&quot;</td>",
                );
            } else {
                html.push_str(&format!("<td class=\"num\">{}</td>", escape(cell)));
            }
        }
        html.push_str(&format!(
            "<td class=\"num\">{}</td>",
            escape(&format!("{:.0} %", c.hbm_utilization * 100.0))
        ));
        html.push_str("</tr>");
    }
    if !rows.is_empty() {
        html.push_str("</tbody>");
    }
    html
}

/// Rows `order[from..from + count]` of the all-configurations table (`config-row`, with
/// `data-index` and `data-key`).
pub fn all_rows_html(
    points: &Points,
    order: &[u32],
    from: usize,
    count: usize,
    req: &SweepRequest,
    selected: Option<usize>,
) -> String {
    let mut html = String::with_capacity(count * 300);
    for (n, &i) in order.iter().enumerate().skip(from).take(count) {
        let i = i as usize;
        let Some(t) = points.topology(i, req) else {
            continue;
        };
        let fits = points.flags[i] & FEASIBLE != 0;
        let frontier = points.flags[i] & FRONTIER != 0;
        html.push_str(&format!(
            "<tr data-testid=\"config-row\" data-index=\"{i}\" data-rank=\"{}\" data-key=\"{}\" class=\"{}{}\" aria-selected=\"{}\">\
             <td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{:.3}</td><td>{}</td></tr>",
            n + 1,
            escape(&short_key(&t)),
            if fits { "fits" } else { "no-fit" },
            if selected == Some(i) { " selected" } else { "" },
            selected == Some(i),
            n + 1,
            escape(&knobs_text(&t)),
            escape(&latency_text(points.latency_ns[i])),
            points.pes[i],
            points.efficiency[i],
            if frontier {
                "frontier"
            } else if fits {
                "fits"
            } else {
                "does not fit or place"
            },
        ));
    }
    html
}

/// The configuration a search names: the CLI's baseline syntax (`cp=2,tp=4,…`, keys
/// not given keep the defaults) or a short key (`cp2.tp4.pp1.dp1.split.TP.pe.pe.kv`).
pub fn find_config(points: &Points, req: &SweepRequest, text: &str) -> Result<usize, FieldError> {
    let base = req.base_topology();
    let topo = if text.contains('=') {
        base.with_baseline(DEFAULT_BASELINE)
            .and_then(|t| t.with_baseline(text))
            .map_err(|e| FieldError::from_explorer(e, "config"))?
    } else {
        parse_short_key(text, &base)?
    };
    (0..points.len())
        .find(|&i| {
            points
                .topology(i, req)
                .is_some_and(|t| same_knobs(&t, &topo))
        })
        .ok_or_else(|| {
            FieldError::new(
                "config",
                format!(
                    "`{}` is not among the enumerated configurations",
                    text.trim()
                ),
            )
        })
}

pub(super) fn same_knobs(a: &TopologyConfig, b: &TopologyConfig) -> bool {
    short_key(a) == short_key(b)
}
