package ddblocal

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got, want := filepath.Join(root, "infra", "ddblocal"), wd; got != want {
		t.Errorf("RepoRoot()/infra/ddblocal = %s, want %s", got, want)
	}
}

func TestInstall(t *testing.T) {
	jarDir, err := Install(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"DynamoDBLocal.jar", "DynamoDBLocal_lib"} {
		if _, err := os.Stat(filepath.Join(jarDir, name)); err != nil {
			t.Errorf("got %v, want %s in %s", err, name, jarDir)
		}
	}
}

func TestEnsureJava(t *testing.T) {
	t.Run("on PATH", func(t *testing.T) {
		if err := EnsureJava(context.Background(), nil); err != nil {
			t.Errorf("got %v, want nil", err)
		}
	})
	t.Run("missing, not root", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		defer func(f func() int) { geteuid = f }(geteuid)
		geteuid = func() int { return 1000 }
		err := EnsureJava(context.Background(), nil)
		want := "sudo apt-get install -y openjdk-17-jre-headless"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	})
}

func TestStartCreateTableStop(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if got := s.Endpoint(); !strings.HasPrefix(got, "http://127.0.0.1:") {
		t.Errorf("Endpoint() = %q, want http://127.0.0.1:<port>", got)
	}

	client := testClient(s)
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Things"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	if got, want := out.TableNames, []string{"Things"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("ListTables = %v, want %v", got, want)
	}

	pid := s.cmd.Process.Pid
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v, want nil", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("signal 0 to process group %d after Stop: got %v, want ESRCH", pid, err)
	}
	addr := strings.TrimPrefix(s.Endpoint(), "http://")
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("dial %s after Stop succeeded, want connection refused", addr)
	}
}

func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	s, err := Start(context.Background(), Options{Port: port})
	if err == nil {
		s.Stop()
		t.Fatalf("Start on a busy port: got nil error, want one")
	}
	if got, want := err.Error(), "already in use"; !strings.Contains(got, want) {
		t.Errorf("Start on a busy port: got %q, want it to contain %q", got, want)
	}
}

// TestStartDetectsBindFailure covers the race the pre-check can't: the port is taken between the
// check and the JVM's bind, after which the JVM hangs instead of exiting.
func TestStartDetectsBindFailure(t *testing.T) {
	jarDir, err := Install(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	// Without the bind check, start would wait for its timeout and fail with another error.
	s, err := start(context.Background(), jarDir, port, Options{})
	if err == nil {
		s.Stop()
		t.Fatalf("start on a busy port: got nil error, want one")
	}
	if !errors.Is(err, errPortInUse) || !strings.Contains(err.Error(), "Failed to bind") {
		t.Errorf("start on a busy port: got %v, want errPortInUse with the JVM's bind error", err)
	}
}

// With DataDir, a table and its items are still there after a stop and a new start.
func TestDataDirSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Start(ctx, Options{Log: testLog{t}, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	client := testClient(s)
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Kept"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ada"}}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Kept"), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}

	again, err := Start(ctx, Options{Log: testLog{t}, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	out, err := testClient(again).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Kept"), Key: item})
	if err != nil {
		t.Fatalf("GetItem after restart: %v", err)
	}
	if out.Item == nil {
		t.Errorf("GetItem after restart: got no item, want the one written before the stop")
	}
}

func testClient(s *Server) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(s.Endpoint()),
		Credentials:                     credentials.NewStaticCredentialsProvider("k", "s", ""),
		DisableValidateResponseChecksum: true,
	})
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
