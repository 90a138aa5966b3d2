//! Prompt tokens, eager against lazy: the assistant's catalog, the catalog
//! with the 525 real MCP tools of `mcp-live-526`, and synthetic catalogs of
//! 100, 1,000 and 10,000 deferred tools made from the public corpora's real
//! schemas. Counts the OpenAI chat-completions request (tools array plus the
//! system note) with o200k_base and cl100k_base; writes a markdown report on
//! stdout and the plot to `bench/results/tokens.svg`.

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::tokens::{Encoding, RequestTokens};
use optimclaw::{DynamicTool, LazyConfig, Registry, Session};
use optimclaw_bench::{data_dir, synthetic};
use plotters::prelude::*;

struct Row {
    name: String,
    tools: usize,
    deferred: usize,
    eager: [usize; 2],
    lazy: [usize; 2],
    note_grouped: usize,
    note_flat: usize,
}

fn measure(registry: &Registry, lazy: &LazyConfig, encoding: Encoding) -> RequestTokens {
    let session = Session::with_lazy(registry.clone(), lazy.clone());
    let r = session.render(Dialect::OpenAi, RenderOptions::default());
    RequestTokens::measure(&r.tools, r.system.as_deref(), encoding)
}

fn row(name: &str, extra: Vec<DynamicTool>) -> Row {
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .tools(extra)
        .build()
        .expect("valid tools");
    let deferred = registry.tools().iter().filter(|t| !t.is_core()).count();
    let mut eager = [0; 2];
    let mut lazy = [0; 2];
    for (i, enc) in Encoding::ALL.into_iter().enumerate() {
        eager[i] = measure(&registry, &LazyConfig::eager(), enc).total();
        lazy[i] = measure(&registry, &LazyConfig::lazy(), enc).total();
    }
    let flat = LazyConfig::lazy().with_note_budget_chars(usize::MAX);
    let note_flat = measure(&registry, &flat, Encoding::O200kBase).note;
    let note_grouped = measure(&registry, &LazyConfig::lazy(), Encoding::O200kBase).note;
    Row {
        name: name.to_owned(),
        tools: registry.len(),
        deferred,
        eager,
        lazy,
        note_grouped,
        note_flat,
    }
}

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let data = data_dir();
    let opts = ManifestOptions::default();
    let mcp = load_manifest(&data.join("mcp-live-526/tools.json"), &opts).expect("mcp-live-526");
    let bfcl = load_manifest(&data.join("bfcl-dev/tools.json"), &opts).expect("bfcl-dev");
    let pool: Vec<DynamicTool> = mcp.iter().chain(bfcl.iter()).cloned().collect();

    let mut rows = vec![
        row("assistant catalog", Vec::new()),
        row("catalog + mcp-live-526", mcp),
    ];
    for n in [100, 1_000, 10_000] {
        rows.push(row(
            &format!("catalog + {n} synthetic"),
            synthetic(&pool, n),
        ));
    }

    println!(
        "| catalog | tools | deferred | eager o200k | lazy o200k | reduction | eager cl100k | lazy cl100k | reduction |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let red = |i: usize| 100.0 * (1.0 - r.lazy[i] as f64 / r.eager[i] as f64);
        println!(
            "| {} | {} | {} | {} | {} | {:.1} % | {} | {} | {:.1} % |",
            r.name,
            r.tools,
            r.deferred,
            r.eager[0],
            r.lazy[0],
            red(0),
            r.eager[1],
            r.lazy[1],
            red(1)
        );
    }
    println!();
    println!(
        "| catalog | note, every name listed | note, grouped (budget 4,000 chars) | listing cost per deferred tool (listed / grouped) | schema cost per deferred tool (eager) |"
    );
    println!("|---|---|---|---|---|");
    for r in &rows {
        let core_only = r.lazy[0] - r.note_grouped;
        println!(
            "| {} | {} | {} | {:.2} / {:.2} | {:.1} |",
            r.name,
            r.note_flat,
            r.note_grouped,
            r.note_flat as f64 / r.deferred as f64,
            r.note_grouped as f64 / r.deferred as f64,
            (r.eager[0] as f64 - core_only as f64) / r.deferred as f64,
        );
    }

    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    std::fs::create_dir_all(&out).expect("results folder");
    let path = out.join("tokens.svg");
    plot(&rows, &path).expect("plot");
    println!("\nplot: {}", path.display());
}

fn plot(rows: &[Row], path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut points: Vec<&Row> = rows
        .iter()
        .filter(|r| r.name != "catalog + mcp-live-526")
        .collect();
    points.sort_by_key(|r| r.tools);
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let max_x = points.iter().map(|r| r.tools).max().unwrap_or(1) as f64 * 1.2;
    let max_y = points.iter().map(|r| r.eager[0]).max().unwrap_or(1) as f64 * 2.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Prompt tokens per request (o200k_base), eager vs lazy",
            ("sans-serif", 20),
        )
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((40f64..max_x).log_scale(), (500f64..max_y).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("tools in the catalog")
        .y_desc("tokens")
        .draw()?;
    let eager: Vec<(f64, f64)> = points
        .iter()
        .map(|r| (r.tools as f64, r.eager[0] as f64))
        .collect();
    let lazy: Vec<(f64, f64)> = points
        .iter()
        .map(|r| (r.tools as f64, r.lazy[0] as f64))
        .collect();
    chart
        .draw_series(LineSeries::new(eager.clone(), &RED))?
        .label("eager: every schema")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart.draw_series(eager.iter().map(|p| Circle::new(*p, 4, RED.filled())))?;
    chart
        .draw_series(LineSeries::new(lazy.clone(), &BLUE))?
        .label("lazy: core + tool_info + note")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart.draw_series(lazy.iter().map(|p| Circle::new(*p, 4, BLUE.filled())))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}
