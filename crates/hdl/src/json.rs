//! The parts of Yosys's `write_json` netlist that mixgc reads.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A whole design: modules by name.
#[derive(Deserialize)]
pub struct Design {
    pub modules: BTreeMap<String, Module>,
}

#[derive(Deserialize)]
pub struct Module {
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// Ports in declaration order.
    #[serde(default)]
    pub ports: OrderedPorts,
    #[serde(default)]
    pub cells: BTreeMap<String, Cell>,
    #[serde(default)]
    pub netnames: BTreeMap<String, NetName>,
}

#[derive(Deserialize)]
pub struct Port {
    pub direction: String,
    pub bits: Vec<Bit>,
}

/// One bit of a port or cell connection: a net number or a constant `"0"`, `"1"`,
/// `"x"`, `"z"`.
#[derive(Clone, Deserialize, PartialEq, Eq, Debug)]
#[serde(untagged)]
pub enum Bit {
    Net(u64),
    Const(String),
}

#[derive(Deserialize)]
pub struct Cell {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub parameters: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub connections: BTreeMap<String, Vec<Bit>>,
}

#[derive(Deserialize)]
pub struct NetName {
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub bits: Vec<Bit>,
    #[serde(default)]
    pub hide_name: u8,
}

/// The `ports` object as a list in document order (Yosys writes declaration order).
#[derive(Default)]
pub struct OrderedPorts(pub Vec<(String, Port)>);

impl<'de> Deserialize<'de> for OrderedPorts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedPorts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of ports")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedPorts, A::Error> {
                let mut ports = Vec::new();
                while let Some((name, port)) = map.next_entry::<String, Port>()? {
                    ports.push((name, port));
                }
                Ok(OrderedPorts(ports))
            }
        }
        d.deserialize_map(V)
    }
}

/// `file:line` from a `src` attribute such as `"add.v:4.9-4.18"` (several sources are
/// joined by `|`; the first is kept), or `what` if there is none.
pub fn location(attributes: &BTreeMap<String, serde_json::Value>, what: &str) -> String {
    match attributes.get("src").and_then(|v| v.as_str()) {
        Some(src) => {
            let first = src.split('|').next().unwrap_or(src);
            match first.rsplit_once(':') {
                Some((file, pos)) => {
                    let line = pos.split(['.', '-']).next().unwrap_or(pos);
                    format!("{file}:{line}")
                }
                None => first.to_string(),
            }
        }
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_keep_document_order_and_locations_read_src() {
        let text = r#"{"modules":{"m":{"attributes":{"src":"m.v:1.1-3.10"},"ports":{
            "z":{"direction":"input","bits":[2,3]},"a":{"direction":"output","bits":["0",2]}},
            "cells":{},"netnames":{}}}}"#;
        let d: Design = serde_json::from_str(text).unwrap();
        let m = &d.modules["m"];
        let names: Vec<&str> = m.ports.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["z", "a"]);
        assert_eq!(m.ports.0[1].1.bits, [Bit::Const("0".into()), Bit::Net(2)]);
        assert_eq!(location(&m.attributes, "?"), "m.v:1");
        assert_eq!(location(&BTreeMap::new(), "module m"), "module m");
    }
}
