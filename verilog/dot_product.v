// Dot product, one multiply-accumulate a clock cycle (TinyGarble's sequential MAC, the
// building block of its matrix multiplication): each cycle the garbler's x[t] and the
// evaluator's y[t] (16-bit, unsigned) are multiplied and added to a 32-bit accumulator;
// the output is the sum so far, x[0]·y[0] + … + x[t]·y[t] (mod 2^32), so after C cycles
// the dot product of two C-element vectors. Run with --cycles C and --input V0:V1:…:V(C−1).
module dot_product (
  input         clk,
  input  [15:0] g_x,
  input  [15:0] e_y,
  output [31:0] dot
);
  reg  [31:0] acc = 32'd0;
  wire [31:0] product = g_x * e_y;
  assign dot = acc + product;
  always @(posedge clk)
    acc <= dot;
endmodule
