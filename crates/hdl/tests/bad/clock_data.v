module clock_data (input clk, input g_a, output y);
  reg r = 0;
  always @(posedge clk) r <= g_a;
  assign y = r ^ clk;
endmodule
