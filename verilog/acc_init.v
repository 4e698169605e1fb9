// A 16-bit accumulator whose starting value is the evaluator's secret (the issue's "initial
// flip-flop values … from a party"): the port `e_init_acc` sets register `acc` at cycle 0
// and is read nowhere else; each cycle adds the garbler's g_x[t]. The output is the sum so
// far before the edge: acc0 + x[0] + … + x[t−1] at cycle t.
module acc_init (
  input         clk,
  input  [15:0] g_x,
  input  [15:0] e_init_acc,
  output [15:0] total
);
  reg [15:0] acc;
  assign total = acc;
  always @(posedge clk)
    acc <= acc + g_x;
endmodule
