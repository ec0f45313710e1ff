INSERT INTO {table} ({columns}) VALUES ({values});
