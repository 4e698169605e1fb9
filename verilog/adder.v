// n-bit adder, the sum modulo 2^N. One-AND full adders: N - 1 ANDs.
module adder #(parameter N = 32) (
  input  [N-1:0] g_a,
  input  [N-1:0] e_b,
  output [N-1:0] sum
);
  assign sum = g_a + e_b;
endmodule
