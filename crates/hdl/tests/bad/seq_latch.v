module seq_latch (input clk, input g_en, input g_a, output y);
  reg r = 0;
  reg l;
  always @* if (g_en) l = g_a;
  always @(posedge clk) r <= l;
  assign y = r;
endmodule
