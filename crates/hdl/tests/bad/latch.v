module latch (input g_a, input e_en, output reg y);
  always @*
    if (e_en) y = g_a;
endmodule
