module syntax (input g_a, input e_b, output y);
  assign y = g_a + ;
endmodule
