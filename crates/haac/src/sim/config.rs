//! The model's parameters (HAAC §3.2 pipeline, §5 "Simulator"): every one the seed leaves
//! open is named here, defaulted from the seed's text where it gives a value, and settable.

use serde::Serialize;

/// Off-chip memory bandwidth (HAAC §5: DDR4-4400 at 35.2 GB/s, an HBM2 PHY at 512 GB/s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Memory {
    Ddr4,
    Hbm2,
    /// Any bandwidth in GB/s (10^9 bytes per second).
    GBps(f64),
}

impl Memory {
    /// Bandwidth in GB/s.
    pub fn gbps(self) -> f64 {
        match self {
            Memory::Ddr4 => 35.2,
            Memory::Hbm2 => 512.0,
            Memory::GBps(g) => g,
        }
    }
}

/// Which half-gate unit the GEs carry (HAAC §3.2: distinct Garbler and Evaluator units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Role {
    /// Generates each AND's table and streams it out to memory.
    Garbler,
    /// Streams each AND's table in and consumes it.
    Evaluator,
}

/// Parameters of the modelled accelerator. Latencies are in GE cycles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimConfig {
    /// Gate engines (HAAC evaluates 1 to 16).
    pub ges: u16,
    /// GE clock (HAAC §5: 1 GHz).
    pub ge_clock_ghz: f64,
    /// SWW clock (HAAC §5: 2 GHz); each single-port bank serves one access per SWW cycle.
    pub sww_clock_ghz: f64,
    /// SWW banks per GE (HAAC §5: 4), interleaved by SWW address.
    pub sww_banks_per_ge: u32,
    pub memory: Memory,
    /// Cycles from a DRAM transfer's end until the data sits in its queue. Open in the seed;
    /// streaming prefetch hides it except at the start.
    pub dram_latency_cycles: u32,
    /// Fetch plus decode stages (HAAC §3.2 "Frontend": one each).
    pub frontend_stages: u32,
    /// Wire-read stages (HAAC §3.2: three — address to bank, bank read, data to the GE).
    pub wire_read_stages: u32,
    /// Half-gate pipeline depth of the Garbler's unit (HAAC §3.2: 21 stages).
    pub and_latency_garbler: u32,
    /// Half-gate pipeline depth of the Evaluator's unit (HAAC §3.2: 18 stages).
    pub and_latency_evaluator: u32,
    /// FreeXOR (and NOT) latency (HAAC §3.2: one cycle).
    pub xor_latency: u32,
    /// Write-back cycles to the SWW (HAAC §3.2: two); forwarding serves consumers from the
    /// first.
    pub writeback_cycles: u32,
    /// Per-GE table queue bytes. HAAC Table 4 has 64 KB of queue SRAM for 16 GEs, 4 KB per
    /// GE; the split between the three queues is ours (half tables, a quarter each for
    /// instructions and out-of-range wires).
    pub table_queue_bytes: u32,
    pub instruction_queue_bytes: u32,
    pub oorw_queue_bytes: u32,
    /// Per-GE buffer for live wires on their way to DRAM. Open in the seed.
    pub write_buffer_bytes: u32,
}

/// Why a configuration cannot be modelled.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("the accelerator needs at least one gate engine")]
    NoEngines,
    #[error("{name} must be a positive finite number, not {value}")]
    NotPositive { name: &'static str, value: f64 },
    #[error("{name} must be at least {min}, not {value}")]
    TooSmall {
        name: &'static str,
        value: u32,
        min: u32,
    },
    #[error(
        "unknown model parameter '{0}' (known: ge_clock_ghz, sww_clock_ghz, sww_banks_per_ge, \
         memory_gbps, dram_latency_cycles, frontend_stages, wire_read_stages, \
         and_latency_garbler, and_latency_evaluator, xor_latency, writeback_cycles, \
         table_queue_bytes, instruction_queue_bytes, oorw_queue_bytes, write_buffer_bytes)"
    )]
    UnknownParameter(String),
    #[error("parameter {name}: '{value}' is not a number")]
    NotANumber { name: String, value: String },
    #[error("{name} must be at most {max}, not {value}")]
    TooLarge {
        name: &'static str,
        value: u32,
        max: u32,
    },
}

impl SimConfig {
    /// The seed's design (HAAC §3.2, §5, Table 4) with `ges` engines and the given memory.
    pub fn seed_default(ges: u16, memory: Memory) -> SimConfig {
        SimConfig {
            ges,
            ge_clock_ghz: 1.0,
            sww_clock_ghz: 2.0,
            sww_banks_per_ge: 4,
            memory,
            dram_latency_cycles: 100,
            frontend_stages: 2,
            wire_read_stages: 3,
            and_latency_garbler: 21,
            and_latency_evaluator: 18,
            xor_latency: 1,
            writeback_cycles: 2,
            table_queue_bytes: 2048,
            instruction_queue_bytes: 1024,
            oorw_queue_bytes: 1024,
            write_buffer_bytes: 1024,
        }
    }

    /// Sets the parameter called `name` (a field name; `memory_gbps` for the bandwidth) from
    /// its decimal text. Ranges are checked by [`SimConfig::validate`].
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        let not_a_number = || ConfigError::NotANumber {
            name: name.to_string(),
            value: value.to_string(),
        };
        let float = || value.trim().parse::<f64>().map_err(|_| not_a_number());
        let int = || value.trim().parse::<u32>().map_err(|_| not_a_number());
        match name {
            "ge_clock_ghz" => self.ge_clock_ghz = float()?,
            "sww_clock_ghz" => self.sww_clock_ghz = float()?,
            "memory_gbps" => self.memory = Memory::GBps(float()?),
            "sww_banks_per_ge" => self.sww_banks_per_ge = int()?,
            "dram_latency_cycles" => self.dram_latency_cycles = int()?,
            "frontend_stages" => self.frontend_stages = int()?,
            "wire_read_stages" => self.wire_read_stages = int()?,
            "and_latency_garbler" => self.and_latency_garbler = int()?,
            "and_latency_evaluator" => self.and_latency_evaluator = int()?,
            "xor_latency" => self.xor_latency = int()?,
            "writeback_cycles" => self.writeback_cycles = int()?,
            "table_queue_bytes" => self.table_queue_bytes = int()?,
            "instruction_queue_bytes" => self.instruction_queue_bytes = int()?,
            "oorw_queue_bytes" => self.oorw_queue_bytes = int()?,
            "write_buffer_bytes" => self.write_buffer_bytes = int()?,
            _ => return Err(ConfigError::UnknownParameter(name.to_string())),
        }
        Ok(())
    }

    /// AND latency of `role`'s half-gate unit.
    pub fn and_latency(&self, role: Role) -> u32 {
        match role {
            Role::Garbler => self.and_latency_garbler,
            Role::Evaluator => self.and_latency_evaluator,
        }
    }

    /// Off-chip bytes per GE cycle.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.memory.gbps() / self.ge_clock_ghz
    }

    /// Accesses one single-port SWW bank serves per GE cycle (2 at 2 GHz SWW / 1 GHz GEs).
    pub fn bank_accesses_per_cycle(&self) -> u32 {
        ((self.sww_clock_ghz / self.ge_clock_ghz).floor() as u32).max(1)
    }

    /// Total SWW banks.
    pub fn banks(&self) -> u32 {
        u32::from(self.ges) * self.sww_banks_per_ge
    }

    /// Checks every parameter is in a range the model handles.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.ges == 0 {
            return Err(ConfigError::NoEngines);
        }
        for (name, value) in [
            ("ge_clock_ghz", self.ge_clock_ghz),
            ("sww_clock_ghz", self.sww_clock_ghz),
            ("memory bandwidth (GB/s)", self.memory.gbps()),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(ConfigError::NotPositive { name, value });
            }
        }
        let at_least = [
            ("sww_banks_per_ge", self.sww_banks_per_ge, 1),
            ("frontend_stages", self.frontend_stages, 1),
            ("wire_read_stages", self.wire_read_stages, 1),
            ("and_latency_garbler", self.and_latency_garbler, 1),
            ("and_latency_evaluator", self.and_latency_evaluator, 1),
            ("xor_latency", self.xor_latency, 1),
            ("writeback_cycles", self.writeback_cycles, 1),
            ("table_queue_bytes", self.table_queue_bytes, 32),
            ("instruction_queue_bytes", self.instruction_queue_bytes, 8),
            ("oorw_queue_bytes", self.oorw_queue_bytes, 40),
            ("write_buffer_bytes", self.write_buffer_bytes, 16),
        ];
        for (name, value, min) in at_least {
            if value < min {
                return Err(ConfigError::TooSmall { name, value, min });
            }
        }
        let at_most = [
            ("ges", u32::from(self.ges), 4096),
            ("sww_banks_per_ge", self.sww_banks_per_ge, 1024),
            ("frontend_stages", self.frontend_stages, 64),
            ("wire_read_stages", self.wire_read_stages, 64),
            ("and_latency_garbler", self.and_latency_garbler, 1024),
            ("and_latency_evaluator", self.and_latency_evaluator, 1024),
            ("xor_latency", self.xor_latency, 1024),
            ("writeback_cycles", self.writeback_cycles, 1024),
            ("dram_latency_cycles", self.dram_latency_cycles, 1 << 20),
            ("table_queue_bytes", self.table_queue_bytes, 1 << 24),
            ("instruction_queue_bytes", self.instruction_queue_bytes, 1 << 24),
            ("oorw_queue_bytes", self.oorw_queue_bytes, 1 << 24),
            ("write_buffer_bytes", self.write_buffer_bytes, 1 << 24),
        ];
        for (name, value, max) in at_most {
            if value > max {
                return Err(ConfigError::TooLarge { name, value, max });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_defaults_follow_the_text() {
        let c = SimConfig::seed_default(16, Memory::Ddr4);
        c.validate().unwrap();
        assert_eq!(c.banks(), 64);
        assert_eq!(c.bank_accesses_per_cycle(), 2);
        assert!((c.bytes_per_cycle() - 35.2).abs() < 1e-12);
        assert_eq!(SimConfig::seed_default(1, Memory::Hbm2).bytes_per_cycle(), 512.0);
        assert_eq!(c.and_latency(Role::Garbler), 21);
        assert_eq!(c.and_latency(Role::Evaluator), 18);
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut c = SimConfig::seed_default(0, Memory::Ddr4);
        assert_eq!(c.validate(), Err(ConfigError::NoEngines));
        c.ges = 2;
        c.memory = Memory::GBps(0.0);
        assert!(c.validate().unwrap_err().to_string().contains("bandwidth"));
        c.memory = Memory::GBps(f64::NAN);
        assert!(c.validate().is_err());
        c.memory = Memory::Ddr4;
        c.table_queue_bytes = 8;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("table_queue_bytes"));
    }

    #[test]
    fn parameters_are_set_by_name() {
        let mut c = SimConfig::seed_default(4, Memory::Ddr4);
        c.set("and_latency_evaluator", "30").unwrap();
        c.set("memory_gbps", "100.5").unwrap();
        assert_eq!(c.and_latency(Role::Evaluator), 30);
        assert_eq!(c.memory, Memory::GBps(100.5));
        assert_eq!(
            c.set("latency", "3"),
            Err(ConfigError::UnknownParameter("latency".into()))
        );
        assert!(c
            .set("xor_latency", "-1")
            .unwrap_err()
            .to_string()
            .contains("not a number"));
        c.set("xor_latency", "0").unwrap();
        assert!(c.validate().is_err());
    }
}
