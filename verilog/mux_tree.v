// 8-way multiplexer tree over 32-bit words: the garbler holds the words, the evaluator
// the select. One AND a bit a 2-way level: 7 x 32 = 224 ANDs.
module mux_tree (
  input      [31:0] g_w0, g_w1, g_w2, g_w3, g_w4, g_w5, g_w6, g_w7,
  input      [2:0]  e_sel,
  output reg [31:0] out
);
  always @* begin
    case (e_sel)
      3'd0: out = g_w0;
      3'd1: out = g_w1;
      3'd2: out = g_w2;
      3'd3: out = g_w3;
      3'd4: out = g_w4;
      3'd5: out = g_w5;
      3'd6: out = g_w6;
      default: out = g_w7;
    endcase
  end
endmodule
