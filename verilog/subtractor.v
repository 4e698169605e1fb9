// n-bit subtractor, the difference modulo 2^N, and the borrow (a < b).
module subtractor #(parameter N = 32) (
  input  [N-1:0] g_a,
  input  [N-1:0] e_b,
  output [N-1:0] diff,
  output         borrow
);
  assign {borrow, diff} = {1'b0, g_a} - {1'b0, e_b};
endmodule
