// Bit-serial multiplier: the garbler's N-bit a is held (synthesize with --once-ports g_a),
// the evaluator's b arrives one bit a cycle, least significant first (then zeros), and the
// product comes out one bit a cycle, least significant first: 2N cycles give the 2N-bit
// product. Each cycle adds a (if the bit of b is 1) to the high half kept in `acc`, emits the
// low bit and shifts: N ANDs for the gating and N for the one-AND ripple adder.
module serial_mult #(parameter N = 32) (
  input          clk,
  input  [N-1:0] g_a,
  input          e_b,
  output         p
);
  reg  [N-1:0] acc = {N{1'b0}};
  wire [N:0]   sum = acc + (e_b ? g_a : {N{1'b0}});
  assign p = sum[0];
  always @(posedge clk)
    acc <= sum[N:1];
endmodule
