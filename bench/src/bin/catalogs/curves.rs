//! The curves of the catalogs bench: for each threshold of the match
//! strength (and, with vectors, of the standardized cosine), false "no
//! match" on requests with a tool and "no match" detected on requests
//! needing none, per catalog, the shipped threshold marked.

/// A catalog's name and its top strengths: requests with a tool, without.
pub type Curve = (String, Vec<Option<f32>>, Vec<Option<f32>>);

/// A catalog's name and, per request with a tool and without, the best
/// keyword strength and standardized cosine.
pub type SpreadCurve = (String, Vec<Option<(f32, f32)>>, Vec<Option<(f32, f32)>>);

/// "No match" when the best keyword strength is under the shipped threshold
/// and the best standardized cosine under z, for several z.
pub fn spread_curve(curves: &[SpreadCurve]) {
    #[cfg(feature = "minilm")]
    let shipped = optimclaw_bench::shipped().strong_spread;
    let strong_match = optimclaw_bench::shipped().strong_match;
    #[cfg(not(feature = "minilm"))]
    let shipped = f32::NAN;
    println!(
        "\nfalse no_match / no_match detected with vectors, by standardized cosine (keyword threshold {strong_match}):\n"
    );
    print!("| standard deviations |");
    for (name, _, _) in curves {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---|".repeat(curves.len()));
    let mut zs: Vec<f32> = (2..=12).map(|z| z as f32).collect();
    if !zs.iter().any(|z| (z - shipped).abs() < 1e-3) && shipped.is_finite() {
        zs.push(shipped);
        zs.sort_by(f32::total_cmp);
    }
    for z in zs {
        let mark = if (z - shipped).abs() < 1e-3 {
            " (shipped)"
        } else {
            ""
        };
        print!("| {z:.2}{mark} |");
        let below = |xs: &[Option<(f32, f32)>]| {
            pct(
                xs.iter()
                    .filter(|x| x.is_none_or(|(s, c)| s < strong_match && c < z))
                    .count(),
                xs.len(),
            )
        };
        for (_, present, absent) in curves {
            print!(" {:.1} / {:.1} |", below(present), below(absent));
        }
        println!();
    }
}

/// `n` of `of`, in percent.
pub fn pct(n: usize, of: usize) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

/// "No match" when the top hit's strength is below t, for several t.
pub fn strength_curve(curves: &[Curve]) {
    let strong_match = optimclaw_bench::shipped().strong_match;
    let mut thresholds: Vec<f32> = (2..=16).map(|s| s as f32 * 0.025).collect();
    if !thresholds.iter().any(|t| (t - strong_match).abs() < 1e-3) {
        thresholds.push(strong_match);
        thresholds.sort_by(f32::total_cmp);
    }
    println!("\nfalse no_match / no_match detected, by strength threshold:\n");
    print!("| threshold |");
    for (name, _, _) in curves {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---|".repeat(curves.len()));
    for t in thresholds {
        let mark = if (t - strong_match).abs() < 1e-3 {
            " (shipped)"
        } else {
            ""
        };
        print!("| {t:.3}{mark} |");
        let below = |xs: &[Option<f32>]| {
            pct(
                xs.iter().filter(|x| x.is_none_or(|s| s < t)).count(),
                xs.len(),
            )
        };
        for (_, present, absent) in curves {
            print!(" {:.1} / {:.1} |", below(present), below(absent));
        }
        println!();
    }
}
