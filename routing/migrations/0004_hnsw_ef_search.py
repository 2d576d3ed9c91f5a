from django.db import migrations

# Slot 4 asks for the 20 nearest cells; a search list of 20 (pgvector's default is 40) is enough
# and faster. Set on the database so every connection has it without a round trip per query.
SET = "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET hnsw.ef_search = 20', current_database()); END $$;"
RESET = "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET hnsw.ef_search', current_database()); END $$;"


class Migration(migrations.Migration):
    dependencies = [("routing", "0003_pattern_cells")]

    operations = [migrations.RunSQL(SET, RESET)]
