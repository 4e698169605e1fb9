// Bit-serial adder (TinyGarble's sequential Sum): one bit of each operand a cycle, least
// significant first; the sum bit of the cycle comes out at once and the carry waits in a
// register for the next. C cycles add two C-bit numbers with one AND a cycle (the one-AND
// full adder of gc_arith.v). Run: mixgc synth verilog/serial_add.v --out sa.txt, then
// mixgc run --circuit sa.txt --cycles 32 with --input V0:V1:…:V31 (one bit a cycle).
module serial_add (
  input  clk,
  input  g_a,
  input  e_b,
  output s
);
  reg carry = 1'b0;
  wire [1:0] sum = g_a + e_b + carry;
  assign s = sum[0];
  always @(posedge clk)
    carry <= sum[1];
endmodule
