//! `mixgc export` and `mixgc ops`: the circuit library as Bristol files and as a gate-count
//! table.

use std::path::PathBuf;

use clap::Args;
use mixgc_circuit::bristol;
use mixgc_program::apps::{self, THESIS_AUCTION_ANDS, THESIS_VOTING_ANDS};
use mixgc_program::library::{self, OPS};
use serde::Serialize;

use crate::summary::thousands;
use crate::{write_stdout, CliError};

#[derive(Args, Debug)]
#[command(
    after_help = "Inputs are in the natural order of the op, the garbler's operand first; \
each value uses the Bristol Fashion convention (wire 0 = least significant bit). `mixgc ops` \
lists the ops. The file runs with `mixgc run --circuit FILE`."
)]
pub struct ExportArgs {
    /// Library op to export (see `mixgc ops`).
    name: String,
    /// Operand width in bits (default: the op's, see `mixgc ops`).
    #[arg(long)]
    width: Option<u32>,
    /// Size for ops that take one (matrix side, string length, number of values).
    #[arg(long)]
    size: Option<usize>,
    /// Where to write the Bristol Fashion file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub fn export(args: ExportArgs) -> Result<(), CliError> {
    let recorded = library::record(&args.name, args.width, args.size)?;
    let c = &recorded.circuit;
    let file =
        std::fs::File::create(&args.out).map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    bristol::write_fashion(c, std::io::BufWriter::new(file))
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let s = c.stats();
    eprintln!(
        "wrote {}: {} gates, {} ANDs, inputs {}, outputs {}",
        args.out.display(),
        thousands(s.gates as u64),
        thousands(s.ands as u64),
        widths(&c.input_widths),
        widths(&c.output_widths)
    );
    Ok(())
}

/// Value widths for a summary: `8, 8, 16 bits`, or `512 × 8 bits` when all are equal and
/// there are many.
fn widths(w: &[u32]) -> String {
    match w {
        [first, rest @ ..] if rest.len() >= 4 && rest.iter().all(|x| x == first) => {
            format!("{} × {first} bits", w.len())
        }
        _ => {
            let each: Vec<String> = w.iter().map(u32::to_string).collect();
            format!("{} bits", each.join(", "))
        }
    }
}

#[derive(Args, Debug)]
pub struct OpsArgs {
    /// Print AND counts per op at widths 8, 16, 32 and 64 next to TinyGarble's Table 3.1,
    /// and of the n-party auction and vote next to the TinyGarble2 thesis's Tables 3.5 and 3.6.
    #[arg(long)]
    table: bool,
    /// Print the table as one JSON array.
    #[arg(long)]
    json: bool,
}

/// Widths of the gate-count table.
pub const TABLE_WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// A published AND count to compare with.
pub struct Reference {
    pub benchmark: &'static str,
    pub op: &'static str,
    pub width: Option<u32>,
    pub size: Option<usize>,
    pub theirs: u64,
    pub source: &'static str,
}

const fn reference(
    benchmark: &'static str,
    op: &'static str,
    width: Option<u32>,
    size: Option<usize>,
    theirs: u64,
    source: &'static str,
) -> Reference {
    Reference {
        benchmark,
        op,
        width,
        size,
        theirs,
        source,
    }
}

/// TinyGarble2 thesis Table 3.1 and other published circuits, with mixgc's op of the same
/// function and size.
pub const REFERENCES: &[Reference] = &[
    reference("Sum-1024", "add", Some(1024), None, 1023, "TinyGarble2 Table 3.1"),
    reference(
        "Compare-1024 (equality)",
        "eq",
        Some(1024),
        None,
        1023,
        "TinyGarble2 Table 3.1",
    ),
    reference(
        "Hamming-160",
        "hamming",
        Some(160),
        None,
        159,
        "TinyGarble2 Table 3.1",
    ),
    reference("Mult-32", "mul", Some(32), None, 993, "TinyGarble2 Table 3.1"),
    reference(
        "MatrixMult 5x5, 32-bit",
        "matmul",
        Some(32),
        Some(5),
        127_225,
        "TinyGarble2 Table 3.1",
    ),
    reference("AES-128", "aes128", None, None, 6400, "TinyGarble2 Table 3.1"),
    reference(
        "SHA-256 compression",
        "sha256",
        None,
        None,
        22_573,
        "Bristol sha256.txt",
    ),
    reference(
        "EDT-256 (edit distance)",
        "edit-distance",
        None,
        Some(256),
        2_730_000,
        "MEG, non-XOR gates",
    ),
];

#[derive(Serialize)]
struct Row {
    op: &'static str,
    width: u32,
    size: Option<usize>,
    ands: u64,
    xors: u64,
    nots: u64,
    and_depth: u32,
}

fn rows() -> Result<Vec<Row>, CliError> {
    let mut rows = Vec::new();
    for info in OPS {
        let widths: Vec<Option<u32>> = match info.default_width {
            Some(_) => TABLE_WIDTHS.iter().map(|&w| Some(w)).collect(),
            None => vec![None],
        };
        for w in widths {
            let c = library::cost(info.name, w, None)?;
            rows.push(Row {
                op: info.name,
                width: w.unwrap_or(0),
                size: info.default_size,
                ands: c.ands,
                xors: c.xors,
                nots: c.nots,
                and_depth: c.and_depth,
            });
        }
    }
    Ok(rows)
}

pub fn ops(args: OpsArgs) -> Result<(), CliError> {
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&rows()?)?));
    }
    let mut out = String::new();
    if !args.table {
        for info in OPS {
            out += &format!("{:<14} {}\n", info.name, info.about);
        }
        out += "\n`mixgc ops --table` prints AND counts; `mixgc export NAME --out FILE` writes one.\n";
        return write_stdout(&out);
    }
    out += &format!(
        "{:<14} {:>10} {:>10} {:>10} {:>10}   (ANDs at width w)\n",
        "op", "w=8", "w=16", "w=32", "w=64"
    );
    let rows = rows()?;
    for info in OPS {
        let cells: Vec<String> = rows
            .iter()
            .filter(|r| r.op == info.name)
            .map(|r| thousands(r.ands))
            .collect();
        out += &format!("{:<14}", info.name);
        for c in cells {
            out += &format!(" {c:>10}");
        }
        out += "\n";
    }
    out += &format!(
        "\n{:<26} {:>12} {:>12}   source\n",
        "reference", "theirs", "mixgc"
    );
    for r in REFERENCES {
        let ours = library::cost(r.op, r.width, r.size)?.ands;
        out += &format!(
            "{:<26} {:>12} {:>12}   {}\n",
            r.benchmark,
            thousands(r.theirs),
            thousands(ours),
            r.source
        );
    }
    out += &applications()?;
    write_stdout(&out)
}

/// The n-party applications' AND counts beside the thesis's optimized circuits (TinyGarble2
/// thesis Tables 3.5 and 3.6, MPCircuits).
fn applications() -> Result<String, CliError> {
    let mut out = format!(
        "\n{:<26} {:>7} {:>12} {:>12}   source\n",
        "n-party application", "parties", "TinyGarble2", "mixgc"
    );
    let mut row = |name: String, parties: usize, theirs: u64, ours: usize, source: &str| {
        out += &format!(
            "{name:<26} {parties:>7} {:>12} {:>12}   {source}\n",
            thousands(theirs),
            thousands(ours as u64)
        );
    };
    for (bits, n, theirs) in THESIS_AUCTION_ANDS {
        let ours = apps::record_auction(n, bits)?.circuit.stats().ands;
        row(
            format!("auction, {bits}-bit bids"),
            n,
            theirs,
            ours,
            "TinyGarble2 Table 3.5",
        );
    }
    for (candidates, n, theirs) in THESIS_VOTING_ANDS {
        let ours = apps::record_voting(n, candidates)?.circuit.stats().ands;
        row(
            format!("voting, {candidates} candidates"),
            n,
            theirs,
            ours,
            "TinyGarble2 Table 3.6",
        );
    }
    Ok(out)
}
