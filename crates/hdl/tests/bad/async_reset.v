module async_reset (input clk, input g_rst, input g_a, output reg y);
  initial y = 0;
  always @(posedge clk or posedge g_rst)
    if (g_rst) y <= 0; else y <= g_a;
endmodule
